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
        case id, task, type, queue, status, attempts, code, cause, location, continueOnError, spans, dependencies
        case artifact, key, missingInputs, warnings
    }

    /// Reads a node; reports written before nodes listed their dependencies, artifacts, keys and warnings read with
    /// none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        id = try container.decode(String.self, forKey: .id)
        task = try container.decode(String.self, forKey: .task)
        type = try container.decode(String.self, forKey: .type)
        queue = try container.decode(String.self, forKey: .queue)
        status = try container.decode(NodeStatus.self, forKey: .status)
        attempts = try container.decode(Int.self, forKey: .attempts)
        code = try container.decodeIfPresent(String.self, forKey: .code)
        cause = try container.decodeIfPresent(String.self, forKey: .cause)
        location = try container.decodeIfPresent(String.self, forKey: .location)
        continueOnError = try container.decode(Bool.self, forKey: .continueOnError)
        spans = try container.decode([RunReport.Span].self, forKey: .spans)
        dependencies = try container.decodeIfPresent([Int].self, forKey: .dependencies) ?? []
        artifact = try container.decodeIfPresent(Artifact.self, forKey: .artifact)
        key = try container.decodeIfPresent(String.self, forKey: .key)
        missingInputs = try container.decodeIfPresent([String].self, forKey: .missingInputs)
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings)
    }
}
