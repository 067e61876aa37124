import Crypto
import FlowBasics
import Foundation
import OrderedCollections

extension UpToDate {
    /// What the decisions need of a task type, asked once per type rather than per task: a plan of 20,000 `noop`
    /// tasks asks `noop` once.
    final class TypeFacts {
        let name: String
        let type: any TaskType
        let implementation: String
        let cachedByDefault: Bool
        let readsInput: Bool
        /// A ``StatelessTask``.
        let isStateless: Bool
        /// The type of its output values, when the store can keep them.
        let valueType: (any StorableOutput.Type)?
        /// Whether its output is the file it wrote (`write`): the recorded file serves its readers.
        let providesFile: Bool
        let takesParameters: Bool
        /// The resolutions of this type's tasks whose parameters are the same for all their nodes, by what
        /// decides them: a chain of 20,000 `sleep` tasks of one duration decodes its parameters once.
        var shared: [SharedResolution: TaskFacts.Resolved] = [:]

        /// What a task's resolution depends on besides its type: its parameters' values, what it reads (which a
        /// type's parameters may depend on) and its `cache:` setting (which its source identity does).
        struct SharedResolution: Hashable {
            var values: [String: Value]
            var inputKind: ProviderKind?
            var cache: CacheSetting?
        }

        init(_ type: any TaskType, name: String) {
            self.name = name
            self.type = type
            implementation = type.implementationVersion
            cachedByDefault = type.cachedByDefault
            readsInput = type.readsInput
            isStateless = type is any StatelessTask
            valueType = type.provides?.valueType
            providesFile = type.provides == .file
            takesParameters = !type.parameters.isEmpty
        }
    }

    /// What the decisions need of a task, looked up once rather than per node (a class: read per node, never
    /// copied).
    final class TaskFacts {
        let id: String
        let kind: TypeFacts
        let cache: CacheSetting?
        private(set) var readsInput: Bool
        /// Whether its nodes name the files their dependencies wrote (``ParameterDependentInput/readsInputFiles(_:)``);
        /// `true` where its nodes' parameters differ and may.
        private(set) var readsInputFiles = false
        /// A ``StatelessTask``'s, without a run condition: nothing of its nodes is kept.
        let keepsNothing: Bool
        /// Whether its nodes run every time (`cache: false`, or a type never reused without `cache: true`): its
        /// dependents are keyed by the digest of what a node made (``UpToDate/keyedByOutput``), not by its key.
        let runsEveryTime: Bool
        let directory: String
        /// Its index in the workflow's tasks.
        let taskIndex: Int
        /// Its fields ahead of its parameters in every key of the run (``NodeKeyInputs/encodeTaskHead(type:implementation:options:into:)``),
        /// encoded once.
        let head: [UInt8]
        private(set) var sharedParameters: Resolved?

        var typeName: String { kind.name }
        var type: any TaskType { kind.type }
        var implementation: String { kind.implementation }
        var cachedByDefault: Bool { kind.cachedByDefault }
        var valueType: (any StorableOutput.Type)? { kind.valueType }

        /// A node's parameters, canonically encoded, and what the type makes of them.
        struct Resolved {
            /// The node's type, implementation, run options and canonical parameters, as its key and its record
            /// encode them (``NodeKeyInputs/encodeTaskFields(type:implementation:options:parameters:into:)``).
            let taskFields: [UInt8]
            var outputPath: String?
            /// What a source node reads (``TaskType/sourceIdentity(_:directory:cache:)``).
            var source: SourceIdentity?
            /// The hash of ``taskFields`` (``NodeKeyInputs/keyPrefix(taskFields:)``), made with them: a shared
            /// resolution's is hashed once for all the nodes of its tasks.
            let keyPrefix: SHA256

            init(taskFields: [UInt8], outputPath: String?, source: SourceIdentity?) {
                self.taskFields = taskFields
                self.outputPath = outputPath
                self.source = source
                keyPrefix = NodeKeyInputs.keyPrefix(taskFields: taskFields)
            }
        }

        private init(
            id: String, taskIndex: Int, kind: TypeFacts, cache: CacheSetting?, keepsNothing: Bool, directory: String,
            options: [String]
        ) {
            self.id = id
            self.taskIndex = taskIndex
            var head = ByteWriter()
            NodeKeyInputs.encodeTaskHead(
                type: kind.name, implementation: kind.implementation, options: options, into: &head)
            self.head = head.bytes
            self.kind = kind
            self.cache = cache
            self.keepsNothing = keepsNothing
            runsEveryTime = !keepsNothing && (cache == .disabled || (cache == nil && !kind.cachedByDefault))
            // What a stateless node does with an input changes nothing the store keeps.
            readsInput = !keepsNothing && kind.readsInput
            self.directory = directory
        }

        /// The facts of every task of a plan, each type asked once.
        /// - Parameters:
        ///   - plan: The plan.
        ///   - options: The run options in every key (``NodeKeyInputs/options``).
        static func of(_ plan: Plan, options: [String]) -> [TaskFacts] {
            var types: [String: TypeFacts] = [:]
            var facts: [TaskFacts] = []
            facts.reserveCapacity(plan.workflow.tasks.count)
            let tasks = plan.workflow.tasks
            let directory = plan.workflow.directory
            // Fields read in place: a task's spec is not copied.
            for index in tasks.indices {
                let name = tasks[index].type.value
                let kind: TypeFacts
                if let known = types[name] {
                    kind = known
                } else {
                    kind = TypeFacts(plan.taskTypes[index], name: name)
                    types[name] = kind
                }
                let cache = tasks[index].cache
                // A run condition's outcome (skipped or run) is a result, kept like any other.
                let made = TaskFacts(
                    id: tasks[index].id.value, taskIndex: index, kind: kind, cache: cache,
                    keepsNothing: kind.isStateless && tasks[index].runIf == .success, directory: directory,
                    options: options)
                // The same for every node of the task (none mentions `${item…}`): resolved when planning, and
                // resolved here once for all the tasks of this type given the same. Not for a task that keeps
                // nothing: most of its nodes get no key, and the few that do resolve their own.
                let shared =
                    tasks[index].parameters.isEmpty && !kind.takesParameters
                    ? ParameterValues() : plan.sharedParameters[index]
                // Whether its nodes read what they depend on, where the parameters that say are the same for all.
                if let type = kind.type as? any ParameterDependentInput, !made.keepsNothing {
                    if let shared, made.readsInput { made.readsInput = type.readsInput(shared) }
                    made.readsInputFiles = shared.map { type.readsInputFiles($0) } ?? true
                }
                if let shared, !made.keepsNothing {
                    let memo = TypeFacts.SharedResolution(
                        values: shared.valuesByName, inputKind: shared.inputKind, cache: cache)
                    if let resolved = kind.shared[memo] {
                        made.sharedParameters = resolved
                    } else {
                        made.sharedParameters = made.resolve(shared)
                        kind.shared[memo] = made.sharedParameters
                    }
                }
                facts.append(made)
            }
            return facts
        }

        /// Whether a node of the task that runs stores its output: `cache: true` (or `content`), or `keep` (even
        /// with `cache: false`: a value the gather phase reads must cross). Not the bytes of a local source under
        /// `cache: content`: the file holds them, and a node that reads them reads it again, where a copy in the
        /// store would upload every photo of a site into a bucket store.
        func storesValue(keep: Bool) -> Bool {
            guard valueType != nil else { return false }
            if keep || cache == .enabled { return true }
            return cache == .content && !(type is any LocalSourceFile)
        }

        /// A node's parameters, canonical, and what its type makes of them, after the task's ``head``.
        func resolve(_ parameters: ParameterValues) -> Resolved {
            let canonical = parameters.names.sorted().compactMap { name in
                parameters[name].map {
                    NodeKeyInputs.Parameter(
                        name: name, value: NodeKeyInputs.canonical($0, as: type.parameter(named: name)?.type))
                }
            }
            var fields = ByteWriter()
            fields.bytes = head
            NodeKeyInputs.encodeParameters(canonical, into: &fields)
            let facts = type.storeFacts(parameters, directory: directory, cache: cache)
            return Resolved(
                taskFields: fields.bytes, outputPath: facts.outputPath.map { NodeContext.resolve($0, in: directory) },
                source: facts.source)
        }

        /// A node's key facts from what validation resolved of it (``ResolvedNodes``), its parameters copied
        /// encoded from there: only a source that is not a local file makes its parameters be resolved again
        /// (`parameters`), for its type to identify it. `nil` when validation kept no facts of the node.
        /// - Parameter stamp: Reads a local file's stamp.
        func resolve(
            _ index: Int, in resolvedNodes: ResolvedNodes, stamp: (String) -> FileStamp?,
            parameters: () -> ParameterValues
        ) -> Resolved? {
            var fields = ByteWriter()
            fields.bytes.reserveCapacity(head.count + 64)
            fields.bytes.append(contentsOf: head)
            guard let (outputPath, nodeSource) = resolvedNodes.encodeParameters(index, of: taskIndex, into: &fields)
            else { return nil }
            let source: SourceIdentity? =
                switch nodeSource {
                case .none: nil
                case .file(let path):
                    .file(
                        atPath: path, relativeTo: directory, byContent: cache == .content, stamp: stamp)
                case .other: type.storeFacts(parameters(), directory: directory, cache: cache).source
                }
            return Resolved(taskFields: fields.bytes, outputPath: outputPath, source: source)
        }
    }
}
