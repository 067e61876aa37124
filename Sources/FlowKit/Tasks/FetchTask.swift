import Foundation

/// `fetch`: reads bytes from an http(s) URL, a file URL or a path relative to the workflow file.
package struct FetchTask: TaskType {
    /// How many redirects one fetch follows before it fails.
    package static let maxRedirects = 5

    package init() {}
    package var name: String { "fetch" }
    package var summary: String { "Reads bytes from an http(s) URL, a file: URL or a path relative to the workflow." }
    /// The parameters of ``FetchTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "http(s) URL, file: URL, or a path relative to the workflow file.")
        package var url: String
        @Parameter(help: "Fail when the body is larger than this (checked while streaming).", range: 1...)
        package var maxBytes = 64 << 20
        @Parameter(help: "Extra HTTP request headers.")
        package var headers: StringMap?
        package init() {}
    }
    package var consumes: InputRequirement { .none }
    package var provides: ProviderKind? { .data }

    /// A local file by path and stamp (or content hash with `cache: content`). An http(s) URL is not
    /// revalidated, so it counts as changed on every run, unless the task says `cache: true`: then the URL is
    /// trusted to name content that does not change.
    package func sourceIdentity(_ parameters: Parameters, directory: String, cache: CacheSetting?) -> SourceIdentity? {
        switch FetchSource.parse(parameters.url, directory: directory, failure: { NodeFailure($0, $1, node: "") }) {
        case .success(.file(let path)): return .file(atPath: path, byContent: cache == .content)
        case .success(.http(let url)):
            let identity = "url \(url.absoluteString)"
            return cache == nil ? .changing(identity) : SourceIdentity(identity)
        case .failure: return nil
        }
    }

    package func fileAccess(_ parameters: Parameters) -> FileAccess {
        guard let path = FetchSource.localPath(parameters.url) else { return .none }
        return FileAccess(reads: [.init(path, from: parameters.$url.name)])
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
        let parameters = context.parameters(as: FetchTask.Parameters.self)
        let written = parameters.url
        let maxBytes = parameters.maxBytes
        switch FetchSource.parse(written, context: context) {
        case .failure(let failure):
            finish(.failure(failure))
        case .success(.file(let path)):
            let reader = FetchFileReader(path: path, written: written, maxBytes: maxBytes, context: context)
            finish(reader.read(isCancelled: { [unowned self] in isCancelled }))
        case .success(.http(let url)):
            startTransfer(url: url, written: written, maxBytes: maxBytes, headers: parameters.headers ?? [:])
        }
    }

    package override func didCancel() {
        transfer.withLock { $0 }?.cancel()
    }

    private func startTransfer(url: URL, written: String, maxBytes: Int, headers: StringMap) {
        let newTransfer = FetchTransfer(
            url: url, source: written, headers: Array(headers), maxBytes: maxBytes, context: context
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
