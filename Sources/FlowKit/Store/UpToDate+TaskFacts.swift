import Foundation
import OrderedCollections

extension UpToDate {
    /// What the decisions need of a task, looked up once rather than per node (a class: read per node, never
    /// copied).
    final class TaskFacts {
        let id: String
        let typeName: String
        let type: (any TaskType)?
        let implementation: String
        let cache: CacheSetting?
        let cachedByDefault: Bool
        let readsInput: Bool
        /// A ``StatelessTask``: nothing of its nodes is kept.
        let keepsNothing: Bool
        let directory: String
        /// The type of the task's output values, when the store can keep them.
        let valueType: (any StorableOutput.Type)?
        private(set) var sharedParameters: Resolved?

        /// A node's parameters, canonically encoded, and what the type makes of them.
        struct Resolved {
            var canonical: [NodeKeyInputs.Parameter]
            var outputPath: String?
            /// What a source node reads (``TaskType/sourceIdentity(_:directory:cache:)``).
            var source: SourceIdentity?
        }

        /// - Parameter parameterless: The resolutions of tasks without parameters, by type and `cache:`, shared.
        init(plan: Plan, task index: Int, firstNode: Int?, parameterless: inout [String: Resolved]) {
            let task = plan.workflow.tasks[index]
            id = task.id.value
            typeName = task.type.value
            type = plan.taskTypes[index]
            implementation = type?.implementationVersion ?? "?"
            cache = task.cache
            cachedByDefault = type?.cachedByDefault ?? true
            // A run condition's outcome (skipped or run) is a result, kept like any other.
            keepsNothing = type is any StatelessTask && task.runIf == .success
            // What a stateless node does with an input changes nothing the store keeps.
            readsInput = !keepsNothing && (type?.readsInput ?? true)
            directory = plan.workflow.directory
            valueType = type?.provides?.valueType
            if task.parameters.isEmpty, type?.parameters.isEmpty ?? true {
                let shared = "\(typeName) \(cache?.rawValue ?? "")"
                if let resolved = parameterless[shared] {
                    sharedParameters = resolved
                } else {
                    sharedParameters = resolve(ParameterValues())
                    parameterless[shared] = sharedParameters
                }
            } else if !task.usesItem, let firstNode {
                sharedParameters = resolve(plan.parameters(of: plan.nodes[firstNode]))
            }
        }

        /// Whether a node of the task that runs stores its output: `cache: true` (or `content`), or `keep` (even
        /// with `cache: false`: a value the gather phase reads must cross).
        func storesValue(keep: Bool) -> Bool {
            valueType != nil && (keep || cache == .enabled || cache == .content)
        }

        func resolve(_ parameters: ParameterValues) -> Resolved {
            let canonical = parameters.names.sorted().compactMap { name in
                parameters[name].map {
                    NodeKeyInputs.Parameter(
                        name: name, value: NodeKeyInputs.canonical($0, as: type?.parameter(named: name)?.type))
                }
            }
            return Resolved(
                canonical: canonical,
                outputPath: type?.outputPath(parameters).map { NodeContext.resolve($0, in: directory) },
                source: type?.sourceIdentity(parameters, directory: directory, cache: cache))
        }
    }
}
