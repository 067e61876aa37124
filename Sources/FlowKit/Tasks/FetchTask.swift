import FlowBasics
import FlowS3
import Foundation

/// `fetch`: reads bytes from an http(s) URL, an `s3://bucket/key` object, a file URL or a path relative to the
/// workflow file.
package struct FetchTask: LocalSourceFile {
    /// How many redirects one fetch follows before it fails.
    package static let maxRedirects = 5

    package init() {}
    package var name: String { "fetch" }
    package var summary: String {
        "Reads bytes from an http(s) URL, an s3:// object, a file: URL or a path relative to the workflow."
    }
    /// The parameters of ``FetchTask``.
    package struct Parameters: TaskParameters {
        @Parameter(help: "http(s) URL, s3://bucket/key, file: URL, or a path relative to the workflow file.")
        package var url: String
        @Parameter(
            help: "Fail when the body is larger than this (checked while streaming; held in memory, 16 GiB at most).",
            range: 1...Double(1 << 34))
        package var maxBytes = 64 << 20
        @Parameter(help: "Extra HTTP request headers.")
        package var headers: StringMap?
        @Parameter(
            help:
                "Fail when the server sends less than 1 KiB in this long: a stalled or trickling server (default 60s).")
        package var idleTimeout = FetchTransfer.defaultIdleTimeout
        package init() {}

        package static var itemParameters: [ItemParameter<Self>] {
            [.storage(\._url), .storage(\._maxBytes), .storage(\._headers), .storage(\._idleTimeout)]
        }

        package func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if idleTimeout < .seconds(1) {
                diagnostics.error("'idleTimeout' must be at least 1s", at: $idleTimeout.location)
            }
            // S3 requests are signed over their headers and sent as S3 defines them: extra headers would change
            // nothing the user wants, or break the signature.
            if let headers, !headers.isEmpty, S3Location.isS3(FetchSource.trimmed(url)) {
                diagnostics.error(
                    "'headers' apply to http(s) fetches; an s3:// fetch sends only its signed S3 request",
                    at: $headers.location,
                    hint: "remove 'headers', or fetch the object over https (a presigned URL) to send your own")
            }
            // A literal location is refused here, before anything runs; one made from an item, when its node runs.
            let written = FetchSource.trimmed(url)
            if !written.contains("${"), let location = S3Location(written), let problem = location.dotSegmentProblem {
                diagnostics.error(problem, at: $url.location)
            }
        }
    }
    package var consumes: InputRequirement { .none }
    package var provides: ProviderKind? { .data }

    /// A local file by path and stamp (or content hash with `cache: content`). An http(s) URL cannot be checked
    /// without asking its server, which ``revalidateSource(_:directory:recorded:)`` does before a run; until then
    /// it counts as changed. With `cache: true` the URL is trusted to name content that does not change.
    package func sourceIdentity(_ parameters: Parameters, directory: String, cache: CacheSetting?) -> SourceIdentity? {
        switch source(parameters, directory: directory) {
        case .success(.file(let path)): return .file(atPath: path, relativeTo: directory, byContent: cache == .content)
        case .success(.http(let url)):
            let identity = HTTPValidator.urlIdentity(url)
            return cache == .enabled ? SourceIdentity(identity) : .changing(identity)
        case .success(.s3(let location)): return S3Fetch.identity(of: location)
        case .failure: return nil
        }
    }

    package func sourceFile(_ parameters: Parameters, directory: String) -> String? {
        guard case .success(.file(let path)) = source(parameters, directory: directory) else { return nil }
        return path
    }

    /// Asks the server whether the version the store recorded (its `ETag`, `Last-Modified` or body hash) is
    /// still current: see `HTTPRevalidation`.
    package func revalidateSource(_ parameters: Parameters, directory: String, recorded: String) -> SourceIdentity? {
        if case .success(.s3(let location)) = source(parameters, directory: directory) {
            return S3Fetch.currentIdentity(of: location)
        }
        guard case .success(.http(let url)) = source(parameters, directory: directory),
            let validator = HTTPValidator(identity: recorded, url: url),
            let current = HTTPRevalidation.current(
                of: url, recorded: validator, headers: Array(parameters.headers ?? [:]),
                maxBytes: parameters.maxBytes)
        else { return nil }
        return SourceIdentity(current.identity(of: url))
    }

    private func source(_ parameters: Parameters, directory: String) -> Result<FetchSource, NodeFailure> {
        FetchSource.parse(parameters.url, directory: directory) { NodeFailure($0, $1, node: "") }
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
package final class FetchOperation: FlowOperation, DataProvider, FileProvider, SourceObserving, SourceFileObserving,
    @unchecked Sendable
{
    /// The version of the http(s) resource (``HTTPValidator``) or object (its `ETag`) downloaded, for the store.
    private let observed = LockedBox<String?>(nil)
    /// The local file read, with its digest, for the store.
    private let readFile = LockedBox<SourceFileRecord?>(nil)

    package var observedSource: String? { observed.withLock { $0 } }

    package var readSourceFile: SourceFileRecord? { readFile.withLock { $0 } }

    /// The fetched bytes, once the operation has succeeded.
    package var providedData: DataPayload? { output(as: DataPayload.self) }

    /// The file read, once succeeded, when the `url` is a local path; `nil` for a download.
    package var providedFile: FileOutput? {
        guard let data = providedData, let path = FetchSource.localPath(data.source) else { return nil }
        return FileOutput(path: path, byteCount: data.bytes.count)
    }

    package override func execute() {
        let parameters = context.parameters(as: FetchTask.Parameters.self)
        let written = parameters.url
        let maxBytes = parameters.maxBytes
        switch FetchSource.parse(written, context: context) {
        case .failure(let failure):
            finish(.failure(failure))
        case .success(.file(let path)):
            let reader = FetchFileReader(path: path, written: written, maxBytes: maxBytes, context: context)
            let (outcome, read) = reader.read(isCancelled: { [unowned self] in isCancelled })
            readFile.withLock { $0 = read }
            finish(outcome)
        case .success(.http(let url)):
            let headers = parameters.headers ?? [:]
            if let problem = HTTPHeaderField.problem(in: headers) {
                finish(.failure(context.failure(.invalidInput, problem)))
                return
            }
            startTransfer(
                url: url, written: written, maxBytes: maxBytes, headers: headers, idleTimeout: parameters.idleTimeout)
        case .success(.s3(let location)):
            startDownload(location, written: written, maxBytes: maxBytes)
        }
    }

    private func startDownload(_ location: S3Location, written: String, maxBytes: Int) {
        let cancellation = S3Cancellation()
        S3Fetch.start(location, written: written, maxBytes: maxBytes, context: context, cancellation: cancellation) {
            [self] outcome, identity in
            if let identity { observed.withLock { $0 = identity } }
            finish(outcome)
        }
        whenCancelled { cancellation.cancel() }
    }

    private func startTransfer(url: URL, written: String, maxBytes: Int, headers: StringMap, idleTimeout: Duration) {
        let newTransfer = FetchTransfer(
            url: url, source: written, headers: Array(headers), maxBytes: maxBytes, idleTimeout: idleTimeout,
            context: context
        ) { [self] outcome, validator in
            if let validator { observed.withLock { $0 = validator.identity(of: url) } }
            finish(outcome)
        }
        newTransfer.start()
        whenCancelled { newTransfer.cancel() }
    }
}
