import Foundation

extension RunReport {
    /// Reads a report written by ``write(toPath:)`` or ``jsonData()`` (`--report run.json`), to render it again.
    /// - Throws: `DecodingError` when the data is not such a report.
    public init(jsonData data: Data) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        self = try decoder.decode(RunReport.self, from: data)
    }
}

extension RunReport.Node {
    private enum Keys: String, CodingKey {
        case id, item, task, type, queue, status, attempts, code, cause, location, continueOnError, spans, dependencies
        case artifact, key, missingInputs, warnings
    }

    /// Reads a node that states all its fields (as ``RunReport/jsonData()`` writes it).
    public init(from decoder: any Decoder) throws {
        try self.init(from: decoder, tasks: [:])
    }

    /// Reads a node; `type`, `queue` and `continueOnError` come from its task's record when the node leaves them out
    /// (``RunReport/write(toPath:)`` writes them once per task). Reports written before nodes listed their
    /// dependencies, artifacts, keys and warnings read with none.
    init(from decoder: any Decoder, tasks: [String: RunReport.TaskRecord]) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let id = try container.decode(String.self, forKey: .id)
        let task = try container.decode(String.self, forKey: .task)
        let record = tasks[task]
        func fromTask<Value: Decodable>(_ key: Keys, _ field: KeyPath<RunReport.TaskRecord, Value>) throws -> Value {
            if let value = try container.decodeIfPresent(Value.self, forKey: key) ?? record?[keyPath: field] {
                return value
            }
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: container.codingPath,
                    debugDescription: "node '\(id)' has no '\(key.stringValue)', and no task '\(task)' in the task list"
                ))
        }
        self.id = id
        self.task = task
        item = try container.decodeIfPresent(Int.self, forKey: .item)
        type = try fromTask(.type, \.type)
        queue = try fromTask(.queue, \.queue)
        continueOnError = try fromTask(.continueOnError, \.continueOnError)
        status = try container.decode(NodeStatus.self, forKey: .status)
        attempts = try container.decode(Int.self, forKey: .attempts)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        cause = try container.decodeIfPresent(String.self, forKey: .cause)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        spans = try container.decode([RunReport.Span].self, forKey: .spans)
        dependencies = try container.decodeIfPresent([Int].self, forKey: .dependencies) ?? []
        artifact = try container.decodeIfPresent(Artifact.self, forKey: .artifact)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        missingInputs = try container.decodeIfPresent([String].self, forKey: .missingInputs)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
    }
}
