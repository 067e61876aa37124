import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of one transfer's `URLSession`: forwards session events to the ``FetchTransfer``.
///
/// Why one session per transfer rather than one shared session: corelibs runs each session's libcurl multi
/// handle on one serial work queue, and `resume()` / `cancel()` wait for that queue (`workQueue.sync`). While
/// a fast download keeps data arriving, the queue stays busy, so on a shared session one node's download
/// delays every other node's start and cancellation (measured 0.3–1.4 s against a loopback server). A session
/// per transfer keeps transfers independent. It costs a multi handle per fetch and no connection reuse across
/// nodes. The session retains this delegate until it is invalidated; ``FetchTransfer`` invalidates it when the
/// transfer ends, on every path, so nothing outlives the node.
final class FetchSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let transfer: FetchTransfer

    init(_ transfer: FetchTransfer) {
        self.transfer = transfer
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // corelibs ignores the disposition (it cannot pause libcurl); the transfer cancels the task instead.
        completionHandler(.allow)
        transfer.didReceive(response)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer.didReceive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        transfer.willRedirect(response, to: request, proceed: completionHandler)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        transfer.didComplete(error, response: task.response)
    }

    /// The configuration of every fetch session: no cache, no cookies, an idle timeout.
    static func configuration(idleTimeout: Duration = FetchTransfer.defaultIdleTimeout) -> URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpShouldSetCookies = false
        // Some servers refuse requests without a recognisable client; a `headers` entry overrides this.
        configuration.httpAdditionalHeaders = ["User-Agent": "flowrun"]
        // An idle timeout (corelibs restarts it whenever data arrives, checked): a stalled server fails the
        // node even without a `timeout`. The node's `timeout` bounds the whole fetch and is the runner's job.
        configuration.timeoutIntervalForRequest = idleTimeout.seconds
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        return configuration
    }

    /// Makes the session for one transfer.
    static func makeSession(for transfer: FetchTransfer, idleTimeout: Duration) -> URLSession {
        // Serial: URLSession delivers a task's events in order only on a serial delegate queue.
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "flowrun.fetch.\(transfer.context.nodeID)"
        return URLSession(
            configuration: configuration(idleTimeout: idleTimeout), delegate: FetchSessionDelegate(transfer),
            delegateQueue: queue)
    }
}
