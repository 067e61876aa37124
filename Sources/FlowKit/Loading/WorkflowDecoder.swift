import OrderedCollections

/// Turns a YAML tree into a ``Workflow``, reporting every structural problem: unknown keys, wrong types,
/// bad limits, unknown task types, malformed ids.
struct WorkflowDecoder {
    static let topLevelKeys = [
        "version", "name", "description", "params", "queues", "defaults", "tasks", "failFast",
    ]

    /// Top-level keys starting with this are ignored, so anchors have somewhere to live (`x-defaults: &d …`).
    static let extensionPrefix = "x-"

    let registry: TaskRegistry
    let path: String
    let directory: String
    var reader = NodeReader()
    private var defaults = TaskDefaults()
    /// The `uses:` tasks of the file, for ``PipelineImporter`` to expand.
    var imports: [PipelineImport] = []

    init(registry: TaskRegistry, path: String, directory: String) {
        self.registry = registry
        self.path = path
        self.directory = directory
    }

    /// Decodes the root node; the diagnostics hold everything found wrong.
    mutating func decode(_ root: YAMLNode) -> (Workflow, Diagnostics) {
        var workflow = Workflow(path: path, directory: directory, name: Self.defaultName(for: path))
        workflow.queues[QueueSpec.defaultName] = QueueSpec(name: QueueSpec.defaultName)
        guard let pairs = root.mapping else {
            reader.diagnostics.error(
                "a workflow must be a map with 'version' and 'tasks', found \(root.kindName)", at: root.location,
                hint: "start the file with 'version: 1' and a 'tasks:' map")
            return (workflow, reader.diagnostics)
        }
        var sawVersion = false
        var sawTasks = false
        // Read first, wherever written: every task needs them.
        if let pair = pairs.first(where: { $0.key.scalar == "defaults" }) { defaults = decodeDefaults(pair.value) }
        for pair in pairs {
            let value = pair.value
            switch pair.key.scalar ?? "" {
            case "version":
                sawVersion = true
                if case .int(let version) = value.value, !value.isQuoted, version != 1 {
                    reader.diagnostics.error(
                        "unsupported workflow version \(version)", at: value.location,
                        hint: "this flowrun reads version 1 files; write 'version: 1'")
                } else if let version = reader.integer(value, "'version'", atLeast: 1, atMost: 1) {
                    workflow.version = version
                }
            case "name":
                if let name = reader.string(value, "'name'") { workflow.name = name.value }
            case "description":
                workflow.description = reader.string(value, "'description'")?.value
            case "failFast":
                workflow.failFast = reader.bool(value, "'failFast'") ?? false
            case "params":
                decodeParams(value, into: &workflow)
            case "queues":
                decodeQueues(value, into: &workflow)
            case "defaults":
                break
            case "tasks":
                sawTasks = true
                decodeTasks(value, into: &workflow)
            case let key where key.hasPrefix(Self.extensionPrefix):
                break  // a home for anchors, as in Compose files
            default:
                reader.unknownKey(pair.key, in: "the workflow", candidates: Self.topLevelKeys)
            }
        }
        let start = SourceLocation(path: path, line: 1, column: 1)
        if !sawVersion {
            reader.diagnostics.error("missing 'version'", at: start, hint: "add 'version: 1' at the top of the file")
        }
        if !sawTasks {
            reader.diagnostics.error("missing 'tasks'", at: start, hint: "add a 'tasks:' map naming at least one task")
        }
        return (workflow, reader.diagnostics)
    }

    private static func defaultName(for path: String) -> String {
        let file = path.split(separator: "/").last.map(String.init) ?? path
        return file.split(separator: ".").first.map(String.init) ?? file
    }

    private mutating func decodeParams(_ node: YAMLNode, into workflow: inout Workflow) {
        guard let pairs = reader.mapping(node, "'params'") else { return }
        for pair in pairs {
            guard let name = pair.key.scalar else { continue }
            reader.checkIdentifier(name, "parameter name", at: pair.key.location)
            if case .mapping = pair.value.content {
                reader.diagnostics.error(
                    "parameter '\(name)' must be a scalar or a list, found a map", at: pair.value.location)
                continue
            }
            workflow.params[name] = Located(pair.value.value, at: pair.value.location)
        }
    }

    private mutating func decodeQueues(_ node: YAMLNode, into workflow: inout Workflow) {
        guard let pairs = reader.mapping(node, "'queues'") else { return }
        for pair in pairs {
            guard let name = pair.key.scalar else { continue }
            reader.checkIdentifier(name, "queue name", at: pair.key.location)
            var queue = QueueSpec(name: name, location: pair.key.location)
            if case .mapping(let settings) = pair.value.content {
                for setting in settings {
                    switch setting.key.scalar ?? "" {
                    case "maxConcurrent":
                        queue.maxConcurrent = reader.integer(
                            setting.value, "'maxConcurrent'", atLeast: 1, atMost: QueueSpec.maxConcurrentLimit)
                    case "qos":
                        queue.qos = reader.choice(setting.value, "'qos'", as: QualityOfServiceName.self) ?? .default
                    default:
                        reader.unknownKey(setting.key, in: "queue '\(name)'", candidates: ["maxConcurrent", "qos"])
                    }
                }
            } else if case .scalar(let text, _) = pair.value.content, text.isEmpty {
                // `download:` with nothing after it: a queue with default settings.
            } else {
                reader.diagnostics.error(
                    "queue '\(name)' must be a map such as { maxConcurrent: 2 }, found \(pair.value.kindName)",
                    at: pair.value.location)
            }
            workflow.queues[name] = queue
        }
    }

    private mutating func decodeTasks(_ node: YAMLNode, into workflow: inout Workflow) {
        guard let pairs = reader.mapping(node, "'tasks'") else { return }
        if pairs.isEmpty {
            reader.diagnostics.error("'tasks' is empty", at: node.location, hint: "name at least one task")
        }
        workflow.tasks.reserveCapacity(pairs.count)
        for pair in pairs {
            let importCount = imports.count
            if let task = decodeTask(pair) { workflow.tasks.append(task) }
            if imports.count > importCount { imports[importCount].position = workflow.tasks.count }
        }
    }

    private mutating func decodeTask(_ pair: YAMLPair) -> TaskSpec? {
        guard let id = pair.key.scalar else { return nil }
        reader.checkIdentifier(id, "task id", at: pair.key.location)
        // A task whose type is missing or unreadable is still kept, with an empty type no registry knows, so
        // tasks that depend on it are not also told it does not exist.
        let untyped = TaskSpec(id: Located(id, at: pair.key.location), type: Located("", at: pair.key.location))
        guard let ownFields = reader.mapping(pair.value, "task '\(id)'") else { return untyped }
        if ownFields.contains(where: { $0.key.scalar == "uses" }) {
            decodeImport(id: Located(id, at: pair.key.location), fields: ownFields)
            return nil
        }
        guard let typePair = ownFields.first(where: { $0.key.scalar == "type" }) else {
            reader.diagnostics.error(
                "task '\(id)' has no 'type'", at: pair.key.location,
                hint: "add 'type:' with one of: \(registry.names.joined(separator: ", "))")
            return untyped
        }
        guard let typeName = reader.string(typePair.value, "'type'") else { return untyped }
        // An unknown type is reported by TaskTypeValidator; its keys cannot be told from misspellings.
        let type = registry[typeName.value]
        var task = TaskSpec(id: Located(id, at: pair.key.location), type: typeName)
        let fields = defaults.applied(to: ownFields, type: typeName.value)
        let hasDependsOn = fields.contains { $0.key.scalar == "dependsOn" }
        for field in fields {
            decodeField(field, of: &task, type: type, hasDependsOn: hasDependsOn)
        }
        return task
    }

    private mutating func decodeField(
        _ field: YAMLPair, of task: inout TaskSpec, type: (any TaskType)?, hasDependsOn: Bool
    ) {
        let value = field.value
        switch field.key.scalar ?? "" {
        case "type":
            break
        case "dependsOn":
            task.dependsOn = decodeIDList(value, "'dependsOn'")
        case "queue":
            task.queue = reader.string(value, "'queue'")
        case "priority":
            task.priority = reader.choice(value, "'priority'", as: PriorityName.self) ?? .normal
        case "retries":
            task.retries = reader.integer(value, "'retries'", atLeast: 0, atMost: 100) ?? 0
        case "retryOn":
            task.retryOn = decodeRetryRule(value)
        case "timeout":
            task.timeout = reader.duration(value, "'timeout'")
        case "runIf":
            task.runIf = reader.choice(value, "'runIf'", as: RunCondition.self) ?? .success
        case "continueOnError":
            task.continueOnError = reader.bool(value, "'continueOnError'") ?? false
        case "gather":
            task.gather = reader.bool(value, "'gather'") ?? false
        case "cache":
            task.cache = reader.choice(value, "'cache'", as: CacheSetting.self)
        case "input":
            task.input = reader.string(value, "'input'")
        case "forEach":
            task.forEach = decodeForEach(value)
        case let key:
            if let type, type.parameter(named: key) != nil {
                task.parameters[key] = field
            } else if let type {
                let suggestion = reader.unknownKey(
                    field.key, in: "task '\(task.id.value)' (\(type.name))",
                    candidates: TaskKey.names + type.parameters.map(\.name))
                // Recover as a compiler does: read a misspelt dependsOn as meant, so the graph checks that follow
                // do not add "depends on no task". The error above keeps the workflow from running.
                if suggestion == "dependsOn", !hasDependsOn {
                    let saved = reader.diagnostics
                    task.dependsOn = decodeIDList(value, "'dependsOn'")
                    reader.diagnostics = saved
                }
            }
        }
    }

    mutating func decodeIDList(_ node: YAMLNode, _ what: String) -> [Located<String>] {
        switch node.content {
        case .scalar(let text, _) where !text.isEmpty:
            return [Located(text, at: node.location)]
        case .sequence(let items):
            return items.compactMap { reader.string($0, "each entry of \(what)") }
        default:
            reader.diagnostics.error(
                "\(what) must be a task id or a list of task ids, found \(node.kindName)", at: node.location)
            return []
        }
    }
}
