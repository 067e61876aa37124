import FlowKit
import OrderedCollections

/// An Argo Workflows `Workflow` (`argoproj.io/v1alpha1`) as flowrun writes one: a DAG of templates that run
/// containers. Typed, so ``ArgoCheck`` can check what Argo's JSON Schema cannot, then made a `JSONValue` that is
/// printed as YAML or JSON.
struct ArgoWorkflow {
    /// A step of a DAG template.
    struct DAGTask {
        var name: String
        var template: String
        var dependencies: [String] = []
        /// Input parameters passed to the template, `{{item}}` standing for the sequence's number.
        var arguments: [(name: String, value: String)] = []
        /// Fans the task out over `start...end`.
        var sequence: ClosedRange<Int>?
    }

    /// A container to run, with the shared volume mounted.
    struct Container {
        var image: String
        var command: [String]
        var args: [String]
        var cpus: Int
    }

    /// A template: a DAG of tasks, or a container.
    struct Template {
        var name: String
        var dag: [DAGTask]?
        var container: Container?
        /// The input parameters the template declares (referred to as `{{inputs.parameters.NAME}}`).
        var inputs: [String] = []
        var retryLimit: Int?
        var activeDeadlineSeconds: Int?
        var parallelism: Int?
    }

    var generateName: String
    var entrypoint: String
    var templates: [Template]
    /// The volume every pod mounts: a PersistentVolumeClaim holding the workflow, its inputs and the store.
    var claim: String
    var mountPath: String
    static let volumeName = "work"

    /// The manifest. Integer-or-string fields (`limit`, `activeDeadlineSeconds`, `start`, `end`) are written as
    /// strings, the form Argo's published schema accepts; the controller takes both.
    var manifest: JSONValue {
        .map([
            "apiVersion": .string("argoproj.io/v1alpha1"),
            "kind": .string("Workflow"),
            "metadata": .map([
                "generateName": .string(generateName),
                "labels": .map(["app.kubernetes.io/managed-by": .string("flowrun")]),
            ]),
            "spec": .map([
                "entrypoint": .string(entrypoint),
                "volumes": .list([
                    .map([
                        "name": .string(Self.volumeName),
                        "persistentVolumeClaim": .map(["claimName": .string(claim)]),
                    ])
                ]),
                "templates": .list(templates.map(manifest(of:))),
            ]),
        ])
    }

    private func manifest(of template: Template) -> JSONValue {
        var entries: OrderedDictionary<String, JSONValue> = ["name": .string(template.name)]
        if !template.inputs.isEmpty {
            entries["inputs"] = .map(["parameters": .list(template.inputs.map { .map(["name": .string($0)]) })])
        }
        if let parallelism = template.parallelism { entries["parallelism"] = .integer(parallelism) }
        if let limit = template.retryLimit {
            entries["retryStrategy"] = .map(["limit": .string(String(limit)), "retryPolicy": .string("Always")])
        }
        if let deadline = template.activeDeadlineSeconds {
            entries["activeDeadlineSeconds"] = .string(String(deadline))
        }
        if let dag = template.dag { entries["dag"] = .map(["tasks": .list(dag.map(manifest(of:)))]) }
        if let container = template.container { entries["container"] = manifest(of: container) }
        return .map(entries)
    }

    private func manifest(of task: DAGTask) -> JSONValue {
        var entries: OrderedDictionary<String, JSONValue> = [
            "name": .string(task.name), "template": .string(task.template),
        ]
        if !task.dependencies.isEmpty {
            entries["dependencies"] = .list(task.dependencies.map(JSONValue.string))
        }
        if !task.arguments.isEmpty {
            let parameters = task.arguments.map {
                JSONValue.map(["name": .string($0.name), "value": .string($0.value)])
            }
            entries["arguments"] = .map(["parameters": .list(parameters)])
        }
        if let sequence = task.sequence {
            entries["withSequence"] = .map([
                "start": .string(String(sequence.lowerBound)), "end": .string(String(sequence.upperBound)),
            ])
        }
        return .map(entries)
    }

    private func manifest(of container: Container) -> JSONValue {
        .map([
            "image": .string(container.image),
            "command": .list(container.command.map(JSONValue.string)),
            "args": .list(container.args.map(JSONValue.string)),
            "resources": .map(["requests": .map(["cpu": .string(String(container.cpus))])]),
            "volumeMounts": .list([.map(["name": .string(Self.volumeName), "mountPath": .string(mountPath)])]),
        ])
    }
}
