import Foundation

/// `fetch`: reads bytes from an http(s) URL, a file URL or a path relative to the workflow file.
package struct FetchTask: TaskType {
    /// The default of `maxBytes`: 64 MiB.
    package static let defaultMaxBytes = 64 << 20
    /// How many redirects one fetch follows before it fails.
    package static let maxRedirects = 5

    package init() {}
    package var name: String { "fetch" }
    package var summary: String { "Reads bytes from an http(s) URL, a file: URL or a path relative to the workflow." }
    package var parameters: [ParameterSpec] {
        [
            ParameterSpec(
                "url", .string, required: true,
                summary: "http(s) URL, file: URL, or a path relative to the workflow file."),
            ParameterSpec(
                "maxBytes", .integer, default: .int(FetchTask.defaultMaxBytes), range: 1...Double(Int.max),
                summary: "Fail when the body is larger than this (checked while streaming)."),
            ParameterSpec("headers", .stringMap, summary: "Extra HTTP request headers."),
        ]
    }
    package var consumes: InputRequirement { .none }
    package var provides: ProviderKind? { .data }

    /// A local file by path and stamp (or content hash with `cache: content`). An http(s) URL is not
    /// revalidated, so it counts as changed on every run, unless the task says `cache: true`: then the URL is
    /// trusted to name content that does not change.
    package func sourceIdentity(_ parameters: ParameterValues, directory: String, cache: CacheSetting?)
        -> SourceIdentity?
    {
        let written = parameters.string("url") ?? ""
        switch FetchSource.parse(written, directory: directory, failure: { NodeFailure($0, $1, node: "") }) {
        case .success(.file(let path)): return .file(atPath: path, byContent: cache == .content)
        case .success(.http(let url)):
            let identity = "url \(url.absoluteString)"
            return cache == nil ? .changing(identity) : SourceIdentity(identity)
        case .failure: return nil
        }
    }

    package func fileAccess(_ parameters: ParameterValues) -> FileAccess {
        guard let path = parameters.string("url").flatMap(FetchSource.localPath) else { return .none }
        return FileAccess(reads: [.init(path, from: "url")])
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { FetchOperation(context: context) }
}

/// The operation of ``FetchTask``: downloads over HTTP(S) with a streaming size limit, or reads a file.
///
/// The output is a ``DataPayload`` whose `source` is the `url` parameter as written. Each HTTP transfer runs on
/// its own `URLSession` (see `FetchSessionDelegate` for why), follows at most ``FetchTask/maxRedirects``
/// http(s) redirects, and ends at once when `cancel()` is called (Ctrl-C or the node's `timeout`); file reads
/// check for cancellation between chunks.
package final class FetchOperation: FlowOperation, DataProvider, @unchecked Sendable {
    /// The transfer in flight, so ``didCancel()`` can stop it. Cleared when it ends, which also breaks the
    /// operation → transfer → completion → operation cycle.
    private let transfer = LockedBox<FetchTransfer?>(nil)

    /// The fetched bytes, once the operation has succeeded.
    package var providedData: DataPayload? { output(as: DataPayload.self) }

    package override func execute() {
        let written = context.parameters.string("url") ?? ""
        let maxBytes = context.parameters.int("maxBytes") ?? FetchTask.defaultMaxBytes
        switch FetchSource.parse(written, context: context) {
        case .failure(let failure):
            finish(.failure(failure))
        case .success(.file(let path)):
            let reader = FetchFileReader(path: path, written: written, maxBytes: maxBytes, context: context)
            finish(reader.read(isCancelled: { [unowned self] in isCancelled }))
        case .success(.http(let url)):
            startTransfer(url: url, written: written, maxBytes: maxBytes)
        }
    }

    package override func didCancel() {
        transfer.withLock { $0 }?.cancel()
    }

    private func startTransfer(url: URL, written: String, maxBytes: Int) {
        let headers = context.parameters.stringMap("headers") ?? []
        let newTransfer = FetchTransfer(
            url: url, source: written, headers: headers, maxBytes: maxBytes, context: context
        ) { [self] outcome in
            transfer.withLock { $0 = nil }
            finish(outcome)
        }
        transfer.withLock { $0 = newTransfer }
        newTransfer.start()
        // `didCancel()` may have run before the transfer was stored; the transfer ignores a second cancel.
        if isCancelled { newTransfer.cancel() }
    }
}
