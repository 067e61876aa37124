import FlowBasics
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

    /// A container to run, with the shared volume mounted or the bucket's settings in its environment.
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

    /// A variable of every container's environment: a value, or a key of a Secret.
    struct EnvironmentVariable {
        var name: String
        var value: String?
        var secret: (name: String, key: String)?
    }

    /// Where the pods find the workflow and share the store.
    enum Storage {
        /// A PersistentVolumeClaim every pod mounts at `mountPath`, holding the workflow, its inputs and the store.
        case claim(String, mountPath: String)
        /// A store in a bucket: no volume; the image holds the workflow, and each container gets `environment`
        /// (the S3 endpoint, region and credentials).
        case bucket(environment: [EnvironmentVariable])
    }

    var generateName: String
    var entrypoint: String
    var templates: [Template]
    var storage: Storage
    static let volumeName = "work"

    /// The manifest. Integer-or-string fields (`limit`, `activeDeadlineSeconds`, `start`, `end`) are written as
    /// strings, the form Argo's published schema accepts; the controller takes both.
    var manifest: JSONValue {
        var spec: OrderedDictionary<String, JSONValue> = ["entrypoint": .string(entrypoint)]
        if case .claim(let claim, _) = storage {
            spec["volumes"] = .list([
                .map(["name": .string(Self.volumeName), "persistentVolumeClaim": .map(["claimName": .string(claim)])])
            ])
        }
        spec["templates"] = .list(templates.map(manifest(of:)))
        return .map([
            "apiVersion": .string("argoproj.io/v1alpha1"),
            "kind": .string("Workflow"),
            "metadata": .map([
                "generateName": .string(generateName),
                "labels": .map(["app.kubernetes.io/managed-by": .string("flowrun")]),
            ]),
            "spec": .map(spec),
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
        var entries: OrderedDictionary<String, JSONValue> = [
            "image": .string(container.image),
            "command": .list(container.command.map(JSONValue.string)),
            "args": .list(container.args.map(JSONValue.string)),
            "resources": .map(["requests": .map(["cpu": .string(String(container.cpus))])]),
        ]
        switch storage {
        case .claim(_, let mountPath):
            entries["volumeMounts"] = .list([
                .map(["name": .string(Self.volumeName), "mountPath": .string(mountPath)])
            ])
        case .bucket(let environment):
            entries["env"] = .list(environment.map(manifest(of:)))
        }
        return .map(entries)
    }

    private func manifest(of variable: EnvironmentVariable) -> JSONValue {
        var entries: OrderedDictionary<String, JSONValue> = ["name": .string(variable.name)]
        if let value = variable.value { entries["value"] = .string(value) }
        if let secret = variable.secret {
            entries["valueFrom"] = .map([
                "secretKeyRef": .map(["name": .string(secret.name), "key": .string(secret.key)])
            ])
        }
        return .map(entries)
    }
}
