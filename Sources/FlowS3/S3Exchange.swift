import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP request to S3 on a kept session of its endpoint (``S3SessionPool``), waited for by the calling
/// thread. The body streams in under a limit: a success body over `maxBytes` ends the transfer at once; an error
/// body is read only as far as its first 64 KiB (enough for S3's XML error) and for at most
/// ``errorBodyDeadline``, then the transfer ends with what came: a server sending an endless (or trickling) error
/// body costs neither unbounded memory nor an endless wait.
final class S3Exchange: Sendable {
    /// What came back.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data

        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// How the exchange ended, when not with a response.
    enum Failure: Error {
        case tooLarge
        case cancelled
        case transport(String)
    }

    private struct State: Sendable {
        var response: Response?
        var result: Result<Response, Failure>?
        /// Whether the answer was cut short (an error body past its limit or its deadline): its connection still
        /// carries the rest, so its session is not reused.
        var cut = false
    }

    /// The most bytes of an error answer's body read.
    static let errorBodyLimit = 64 << 10
    /// How long an error answer's body may take to come, from its headers.
    static let errorBodyDeadline = Duration.seconds(10)
    /// How long the body of a success answer held in memory (a listing page, a PUT's answer) may take to come
    /// whole, from its headers: a trickling server ends the attempt rather than holding it for ever.
    static let answerBodyDeadline = Duration.seconds(120)
    private let maxBytes: Int
    private let bodyDeadline: Duration?
    private let state = Mutex(State())
    private let done = DispatchSemaphore(value: 0)

    private init(maxBytes: Int, bodyDeadline: Duration?) {
        self.maxBytes = maxBytes
        self.bodyDeadline = bodyDeadline
    }

    /// Sends `request` (with `body` for an upload) to `endpoint` and waits for the whole answer or
    /// `cancellation`. The session goes back to the pool once the answer came whole, so the next request reuses
    /// its connection; after an early end it is invalidated, which stops the transfer.
    static func perform(
        _ request: URLRequest, endpoint: String, body: Data?, maxBytes: Int, bodyDeadline: Duration?,
        cancellation: S3Cancellation?
    ) -> Result<Response, Failure> {
        let exchange = S3Exchange(maxBytes: maxBytes, bodyDeadline: bodyDeadline)
        let session = S3SessionPool.take(for: endpoint)
        guard cancellation?.register({ exchange.end(.failure(.cancelled)) }) ?? true else {
            S3SessionPool.giveBack(session)
            return .failure(.cancelled)
        }
        guard session.start(request, body: body, for: exchange) != nil else {
            cancellation?.register(nil)
            return .failure(.transport("the connection's session was closed"))
        }
        exchange.done.wait()
        cancellation?.register(nil)
        let (result, cut) = exchange.state.withLock { ($0.result ?? .failure(.cancelled), $0.cut) }
        if case .success = result, !cut {
            S3SessionPool.giveBack(session)
        } else {
            session.invalidate()
        }
        return result
    }

    func didReceive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            return end(.failure(.transport("the server did not answer with an HTTP response")))
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        let isSuccess = (200..<300).contains(http.statusCode)
        if isSuccess, http.expectedContentLength > maxBytes { return end(.failure(.tooLarge)) }
        state.withLock { $0.response = Response(status: http.statusCode, headers: headers, body: Data()) }
        if let wait = isSuccess ? bodyDeadline : Self.errorBodyDeadline {
            let deadline = DispatchTime.now() + .milliseconds(Int(wait / .milliseconds(1)))
            DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in
                guard let self else { return }
                guard isSuccess else { return endWithErrorSoFar() }
                end(.failure(.transport("its answer did not come whole within \(wait)")))
            }
        }
    }

    func didReceive(_ data: Data) {
        enum Next { case goOn, tooLarge, errorComplete }
        let next = state.withLock { state -> Next in
            guard state.result == nil, var response = state.response else { return .goOn }
            let isSuccess = (200..<300).contains(response.status)
            let limit = isSuccess ? maxBytes : Self.errorBodyLimit
            guard response.body.count + data.count <= limit else {
                guard !isSuccess else { return .tooLarge }
                // The first 64 KiB of an error body say what it is; the rest is not waited for.
                response.body.append(data.prefix(limit - response.body.count))
                state.response = response
                return .errorComplete
            }
            state.response = nil
            response.body.append(data)
            state.response = response
            return .goOn
        }
        switch next {
        case .goOn: break
        case .tooLarge: end(.failure(.tooLarge))
        case .errorComplete: endWithErrorSoFar()
        }
    }

    /// Ends an error answer with the part of its body that came (past its limit or its deadline).
    private func endWithErrorSoFar() {
        let response = state.withLock { state -> Response? in
            guard state.result == nil, let response = state.response else { return nil }
            state.cut = true
            return response
        }
        if let response { end(.success(response)) }
    }

    func didComplete(_ error: (any Error)?) {
        if let error { return end(.failure(.transport(error.localizedDescription))) }
        let response = state.withLock { $0.response }
        guard let response else { return end(.failure(.transport("the connection ended without a response"))) }
        end(.success(response))
    }

    /// Records the first ending and wakes the caller.
    private func end(_ result: Result<Response, Failure>) {
        let first = state.withLock { state -> Bool in
            guard state.result == nil else { return false }
            state.result = result
            state.response = nil
            return true
        }
        if first { done.signal() }
    }
}

/// Lets a node's cancellation stop the S3 request it is waiting for.
package final class S3Cancellation: Sendable {
    private struct State {
        var cancelled = false
        var stop: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())

    package init() {}

    /// Whether ``cancel()`` was called.
    package var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Stops the request in flight, and every later one before it starts.
    package func cancel() {
        let stop = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            defer { state.stop = nil }
            return state.stop
        }
        stop?()
    }

    /// Sets what stops the request in flight; `false` when already cancelled.
    @discardableResult
    func register(_ stop: (@Sendable () -> Void)?) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.stop = stop
            return true
        }
    }
}
