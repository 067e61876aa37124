/// An Argo Workflows `Workflow` (`argoproj.io/v1alpha1`) as flowrun writes one: a DAG of templates that run
/// containers. Typed, so ``ArgoCheck`` can check what Argo's JSON Schema cannot, then rendered as a ``Manifest``.
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
    var manifest: Manifest {
        .map([
            ("apiVersion", .string("argoproj.io/v1alpha1")),
            ("kind", .string("Workflow")),
            (
                "metadata",
                .map([
                    ("generateName", .string(generateName)),
                    ("labels", .map([("app.kubernetes.io/managed-by", .string("flowrun"))])),
                ])
            ),
            (
                "spec",
                .map([
                    ("entrypoint", .string(entrypoint)),
                    (
                        "volumes",
                        .list([
                            .map([
                                ("name", .string(Self.volumeName)),
                                ("persistentVolumeClaim", .map([("claimName", .string(claim))])),
                            ])
                        ])
                    ),
                    ("templates", .list(templates.map(manifest(of:)))),
                ])
            ),
        ])
    }

    private func manifest(of template: Template) -> Manifest {
        var entries: [(String, Manifest)] = [("name", .string(template.name))]
        if !template.inputs.isEmpty {
            entries.append(
                ("inputs", .map([("parameters", .list(template.inputs.map { .map([("name", .string($0))]) }))])))
        }
        if let parallelism = template.parallelism { entries.append(("parallelism", .integer(parallelism))) }
        if let limit = template.retryLimit {
            entries.append(
                ("retryStrategy", .map([("limit", .string(String(limit))), ("retryPolicy", .string("Always"))])))
        }
        if let deadline = template.activeDeadlineSeconds {
            entries.append(("activeDeadlineSeconds", .string(String(deadline))))
        }
        if let dag = template.dag { entries.append(("dag", .map([("tasks", .list(dag.map(manifest(of:))))]))) }
        if let container = template.container { entries.append(("container", manifest(of: container))) }
        return .map(entries)
    }

    private func manifest(of task: DAGTask) -> Manifest {
        var entries: [(String, Manifest)] = [("name", .string(task.name)), ("template", .string(task.template))]
        if !task.dependencies.isEmpty {
            entries.append(("dependencies", .list(task.dependencies.map(Manifest.string))))
        }
        if !task.arguments.isEmpty {
            let parameters = task.arguments.map {
                Manifest.map([("name", .string($0.name)), ("value", .string($0.value))])
            }
            entries.append(("arguments", .map([("parameters", .list(parameters))])))
        }
        if let sequence = task.sequence {
            entries.append(
                (
                    "withSequence",
                    .map([
                        ("start", .string(String(sequence.lowerBound))), ("end", .string(String(sequence.upperBound))),
                    ])
                ))
        }
        return .map(entries)
    }

    private func manifest(of container: Container) -> Manifest {
        .map([
            ("image", .string(container.image)),
            ("command", .list(container.command.map(Manifest.string))),
            ("args", .list(container.args.map(Manifest.string))),
            ("resources", .map([("requests", .map([("cpu", .string(String(container.cpus)))]))])),
            ("volumeMounts", .list([.map([("name", .string(Self.volumeName)), ("mountPath", .string(mountPath))])])),
        ])
    }
}
