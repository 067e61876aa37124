import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `URLSession`s of S3 requests, kept for the process per endpoint, so requests to one endpoint reuse their
/// connections (libcurl keeps a session's connections open between its tasks).
///
/// Each session carries one request at a time: corelibs runs a session's transfers on one serial work queue, and a
/// busy download there would delay the start and cancellation of the others (see `FetchSessionDelegate`). So a
/// request takes an idle session of its endpoint, or makes one, and gives it back when its answer came whole; a
/// request that ended early (cancelled, too large, a broken connection) invalidates its session instead. At most
/// ``S3Client/connectionsPerEndpoint`` requests run per endpoint, so at most that many sessions are kept.
enum S3SessionPool {
    private static let idle = Mutex<[String: [S3Session]]>([:])

    /// An idle session of `endpoint`, or a new one.
    static func take(for endpoint: String) -> S3Session {
        idle.withLock { $0[endpoint]?.popLast() } ?? S3Session(endpoint: endpoint)
    }

    /// Keeps `session` for the next request to its endpoint.
    static func giveBack(_ session: S3Session) {
        let kept = idle.withLock { all -> Bool in
            guard all[session.endpoint, default: []].count < S3Client.connectionsPerEndpoint else { return false }
            all[session.endpoint, default: []].append(session)
            return true
        }
        if !kept { session.invalidate() }
    }
}

/// A kept `URLSession` and its delegate, which hands each event to the exchange of the task it is about; events of
/// an earlier, abandoned task are dropped.
final class S3Session: NSObject, URLSessionDataDelegate, Sendable {
    let endpoint: String
    private let current = Mutex<(task: Int, exchange: S3Exchange)?>(nil)
    private let session = Mutex<URLSession?>(nil)

    init(endpoint: String) {
        self.endpoint = endpoint
        super.init()
        let queue = OperationQueue()
        // Serial: URLSession delivers a task's events in order only on a serial delegate queue.
        queue.maxConcurrentOperationCount = 1
        queue.name = "flowrun.s3"
        session.withLock {
            $0 = URLSession(configuration: Self.configuration(), delegate: self, delegateQueue: queue)
        }
    }

    /// The configuration of every S3 session, the same as of FlowKit's `fetch` sessions
    /// (`FetchSessionDelegate.configuration()`, which a test holds it to): no cache, no cookies, flowrun's
    /// `User-Agent`, and an idle timeout of 60 s (restarted whenever data arrives), so a stalled server fails the
    /// request without a node `timeout`.
    static func configuration() -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        configuration.httpAdditionalHeaders = ["User-Agent": "flowrun"]
        configuration.timeoutIntervalForRequest = 60
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        return configuration
    }

    /// Starts `request` (with `body` for an upload) for `exchange`; `nil` once invalidated.
    func start(_ request: URLRequest, body: Data?, for exchange: S3Exchange) -> URLSessionTask? {
        guard let session = session.withLock({ $0 }) else { return nil }
        let task = body.map { session.uploadTask(with: request, from: $0) } ?? session.dataTask(with: request)
        current.withLock { $0 = (task.taskIdentifier, exchange) }
        task.resume()
        return task
    }

    /// Ends the session; it breaks the reference cycle with its delegate.
    func invalidate() {
        current.withLock { $0 = nil }
        let ended = session.withLock { session -> URLSession? in
            defer { session = nil }
            return session
        }
        // Off this thread: cancelling waits for the session's busy work queue.
        if let ended { DispatchQueue.global().async { ended.invalidateAndCancel() } }
    }

    private func exchange(of task: URLSessionTask) -> S3Exchange? {
        current.withLock { $0?.task == task.taskIdentifier ? $0?.exchange : nil }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
        exchange(of: dataTask)?.didReceive(response)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(of: dataTask)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(of: task)?.didComplete(error)
    }
}
