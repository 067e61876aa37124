import Crypto
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Asks a server, before a run, which version of a resource it has now, given the validator the store recorded.
///
/// With an `ETag` or `Last-Modified` recorded it sends a conditional GET (`If-None-Match` / `If-Modified-Since`):
/// a 304 means unchanged and nothing is downloaded; a 2xx with a validator is read no further than its headers
/// (the `fetch` node downloads the new version when it runs). With a body hash recorded (the server sent no
/// validator) the body is downloaded and hashed as it streams, never held in memory. Anything else — an error,
/// another status, a body over `maxBytes` — leaves the version unknown, so the node runs and reports the cause.
final class HTTPRevalidation: NSObject, URLSessionDataDelegate, Sendable {
    private struct State: Sendable {
        var session: URLSession?
        var hasher: SHA256?
        var bodyBytes = 0
        var ended = false
    }

    /// How long a check may take in all, however slowly the server trickles.
    static let deadline: TimeInterval = 300

    private let url: URL
    private let recorded: HTTPValidator
    private let maxBytes: Int
    private let state = Mutex(State())
    private let result = Mutex<HTTPValidator?>(nil)
    private let done = DispatchSemaphore(value: 0)

    private init(url: URL, recorded: HTTPValidator, maxBytes: Int) {
        self.url = url
        self.recorded = recorded
        self.maxBytes = maxBytes
    }

    /// The validator of the version the server has now (`recorded` when it answered 304), or `nil` when that
    /// cannot be told. Blocks until the server answered, at most ``deadline``.
    /// - Parameters:
    ///   - url: The resource.
    ///   - recorded: The validator the store recorded for it.
    ///   - headers: The task's extra request headers.
    ///   - maxBytes: The most body bytes hashed when only a body hash can tell.
    static func current(
        of url: URL, recorded: HTTPValidator, headers: [(key: String, value: String)], maxBytes: Int
    ) -> HTTPValidator? {
        let check = HTTPRevalidation(url: url, recorded: recorded, maxBytes: maxBytes)
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let condition = recorded.conditionalHeader {
            request.setValue(condition.value, forHTTPHeaderField: condition.name)
        }
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let session = URLSession(
            configuration: FetchSessionDelegate.configuration(), delegate: check, delegateQueue: queue)
        check.state.withLock { $0.session = session }
        session.dataTask(with: request).resume()
        if check.done.wait(timeout: .now() + deadline) == .timedOut { check.end(nil) }
        return check.result.withLock { $0 }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
        guard let http = response as? HTTPURLResponse else { return end(nil) }
        if http.statusCode == 304, recorded.conditionalHeader != nil { return end(recorded) }
        guard (200..<300).contains(http.statusCode) else { return end(nil) }
        if let validator = HTTPValidator(response: http) { return end(validator) }
        state.withLock { $0.hasher = SHA256() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = state.withLock { state -> Bool in
            guard !state.ended, state.hasher != nil else { return false }
            state.bodyBytes += data.count
            guard state.bodyBytes <= maxBytes else { return true }
            state.hasher?.update(data: data)
            return false
        }
        if tooLarge { end(nil) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let digest = state.withLock { state in error == nil ? state.hasher?.finalize() : nil }
        end(digest.map { .sha256(ContentDigest.hex($0)) })
    }

    /// Records the answer once and lets the session go.
    private func end(_ validator: HTTPValidator?) {
        let session = state.withLock { state -> URLSession?? in
            guard !state.ended else { return .none }
            state.ended = true
            defer { state.session = nil }
            return .some(state.session)
        }
        guard case .some(let started) = session else { return }
        result.withLock { $0 = validator }
        // Off the delegate queue: cancelling waits for the session's work queue (see `FetchTransfer.end`).
        if let started { DispatchQueue.global().async { started.invalidateAndCancel() } }
        done.signal()
    }
}
