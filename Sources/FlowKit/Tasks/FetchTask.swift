/// `fetch`: reads bytes from an http(s) URL, a file URL or a path relative to the workflow file.
public struct FetchTask: TaskType {
    public init() {}
    public var name: String { "fetch" }
    public var summary: String { "Reads bytes from an http(s) URL, a file: URL or a path relative to the workflow." }
    public var parameters: [ParameterSpec] {
        [
            ParameterSpec("url", .string, required: true, summary: "http(s) URL, file: URL, or a path relative to the workflow file."),
            ParameterSpec("maxBytes", .integer, default: .int(64 << 20), range: 1...Double(Int.max), summary: "Fail when the body is larger than this (checked while streaming)."),
            ParameterSpec("headers", .stringMap, summary: "Extra HTTP request headers."),
        ]
    }
    public var consumes: InputRequirement { .none }
    public var provides: ProviderKind? { .data }
    public func makeOperation(_ context: NodeContext) -> FlowOperation { FetchOperation(context: context) }
}

/// The operation of ``FetchTask``. (Placeholder until the fetch implementation lands.)
public final class FetchOperation: FlowOperation, DataProvider, @unchecked Sendable {
    public var providedData: DataPayload? { output(as: DataPayload.self) }
}
