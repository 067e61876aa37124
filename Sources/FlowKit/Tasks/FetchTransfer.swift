import FlowBasics
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP(S) download of a `fetch` node: collects the body as it streams in, enforces `maxBytes`, vets
/// redirects, and turns the end of the transfer into exactly one ``FlowOperation/Outcome``.
///
/// Events arrive from the transfer's own session (see ``FetchSessionDelegate``) on its serial delegate queue;
/// ``cancel()`` comes from any thread.
final class FetchTransfer: Sendable {
    private struct State: Sendable {
        var session: URLSession?
        /// Set once, when the outcome is decided; every later event is ignored.
        var ended = false
        var response: HTTPURLResponse?
        var body = Data()
        var redirects = 0
        /// Bytes received since the watchdog last looked.
        var receivedSinceCheck = 0
    }

    /// How long a transfer may go with less than ``minimumBytesPerIdleTimeout`` arriving, unless `idleTimeout`
    /// says otherwise: what curl's `--speed-time` is for, on by default as URLSession's request timeout is.
    static let defaultIdleTimeout = Duration.seconds(60)
    /// Less than this in an `idleTimeout` is a stall: a server trickling a byte every few seconds never lets
    /// an idle timeout (which any byte restarts) fire.
    static let minimumBytesPerIdleTimeout = 1024

    /// The URL as first requested.
    let url: URL
    /// The `url` parameter as written, for the payload's source.
    let source: String
    let headers: [(key: String, value: String)]
    let maxBytes: Int
    let idleTimeout: Duration
    let context: NodeContext
    private let completion: @Sendable (FlowOperation.Outcome, HTTPValidator?) -> Void
    private let state = Mutex(State())
    /// Checks the pace every `idleTimeout` while the transfer runs.
    private let watchdog = LockedBox<(any DispatchSourceTimer)?>(nil)

    /// Creates a transfer; `completion` is called exactly once, on any thread, with no lock held, with the
    /// outcome and, for a body downloaded whole, the version it is (``HTTPValidator``).
    init(
        url: URL, source: String, headers: [(key: String, value: String)], maxBytes: Int,
        idleTimeout: Duration = defaultIdleTimeout, context: NodeContext,
        completion: @escaping @Sendable (FlowOperation.Outcome, HTTPValidator?) -> Void
    ) {
        self.url = url
        self.source = source
        self.headers = headers
        self.maxBytes = maxBytes
        self.idleTimeout = idleTimeout
        self.context = context
        self.completion = completion
    }

    /// Starts the request, unless the transfer was cancelled first.
    func start() {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let session = FetchSessionDelegate.makeSession(for: self, idleTimeout: idleTimeout)
        let task = session.dataTask(with: request)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        let interval = DispatchTimeInterval.milliseconds(Int(idleTimeout.seconds * 1000))
        timer.schedule(deadline: .now() + interval, repeating: interval)
        timer.setEventHandler { [weak self] in self?.checkPace() }
        watchdog.withLock { $0 = timer }
        timer.resume()
        let proceed = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            state.session = session
            return true
        }
        if proceed {
            task.resume()
        } else {
            session.invalidateAndCancel()
            watchdog.withLock { timer in
                timer?.cancel()
                timer = nil
            }
        }
    }

    /// Stops the transfer now and reports ``FlowOperation/Outcome/cancelled``; does nothing once it ended.
    func cancel() {
        end(.cancelled)
    }

    // MARK: Session events (on the session's serial delegate queue)

    func didReceive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            return end(
                .failure(context.failure(.network, "\(url.absoluteString) did not answer with an HTTP response")))
        }
        if let failure = statusFailure(http) { return end(.failure(failure)) }
        let declared = http.expectedContentLength
        // With a Content-Encoding the header counts encoded bytes and libcurl hands us decoded ones, so only
        // an identity body can be refused up front; the streaming check below covers the rest.
        if declared > maxBytes, !Self.isEncoded(http) {
            return end(
                .failure(
                    context.failure(
                        .tooLarge,
                        "\(url.absoluteString) is \(declared) bytes (Content-Length), more than maxBytes (\(maxBytes))")
                ))
        }
        state.withLock { state in
            guard !state.ended else { return }
            state.response = http
            if declared > 0 { state.body.reserveCapacity(Int(min(declared, Int64(maxBytes)))) }
        }
    }

    func didReceive(_ data: Data) {
        let tooMuch = state.withLock { state -> Bool in
            guard !state.ended else { return false }
            // Checked before appending, so memory never holds more than maxBytes of this body.
            guard state.body.count + data.count <= maxBytes else { return true }
            state.body.append(data)
            state.receivedSinceCheck += data.count
            return false
        }
        if tooMuch {
            end(
                .failure(
                    context.failure(
                        .tooLarge,
                        "\(url.absoluteString) sent more than maxBytes (\(maxBytes) bytes); the transfer was stopped")))
        }
    }

    /// Decides a redirect and answers `proceed`, or leaves it unanswered when the transfer has ended.
    ///
    /// Why the answer is given under the lock, and never once the transfer ended: corelibs crashes
    /// ("Received callback for HTTP redirection, but we're not waiting for it") when a redirect answer reaches
    /// a task whose cancellation was processed first. The answer enqueues its work on the task's serial work
    /// queue; ``end(_:cancelTask:)`` sets `ended` under the same lock before it cancels. So an answer is
    /// always enqueued before the cancellation, and an ended transfer never answers (the cancelled task
    /// completes without it).
    func willRedirect(_ response: HTTPURLResponse, to proposed: URLRequest, proceed: @Sendable (URLRequest?) -> Void) {
        let from = response.url ?? url
        let location = Self.header("Location", in: response)
        let target = location.flatMap { URL(string: $0, relativeTo: from)?.absoluteURL } ?? proposed.url
        let refusal: NodeFailure? = state.withLock { state in
            guard !state.ended else { return nil }
            let shownTarget = location ?? target?.absoluteString ?? "?"
            guard let target, let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
                return context.failure(
                    .unsupported,
                    "\(from.absoluteString) redirected to '\(shownTarget)'; only http and https redirects are followed")
            }
            state.redirects += 1
            guard state.redirects <= FetchTask.maxRedirects else {
                return context.failure(
                    .http,
                    "too many redirects fetching \(url.absoluteString): more than \(FetchTask.maxRedirects)"
                        + " (the last one from \(from.absoluteString) to \(shownTarget))"
                )
            }
            var next = proposed
            next.url = target
            // Like curl and browsers: credentials meant for one host are not sent to another.
            if target.host?.lowercased() != url.host?.lowercased() {
                next.setValue(nil, forHTTPHeaderField: "Authorization")
                next.setValue(nil, forHTTPHeaderField: "Cookie")
            }
            proceed(next)
            return nil
        }
        if let refusal {
            // Declining (nil) lets the task complete on its own with the 3xx response; it must not also be
            // cancelled, for the reason above.
            let answered = end(.failure(refusal), cancelTask: false)
            if answered { proceed(nil) }
        }
    }

    func didComplete(_ error: (any Error)?, response taskResponse: URLResponse?) {
        if let error {
            return end(.failure(FetchErrors.failure(for: error, url: url, idleTimeout: idleTimeout, context: context)))
        }
        var validator: HTTPValidator?
        let outcome: FlowOperation.Outcome = state.withLock { state in
            guard let response = state.response ?? (taskResponse as? HTTPURLResponse) else {
                return .failure(context.failure(.network, "\(url.absoluteString) ended without a response"))
            }
            if let failure = statusFailure(response) { return .failure(failure) }
            let declared = response.expectedContentLength
            // libcurl normally reports a short body itself; this catches any path where it did not.
            if declared >= 0, state.body.count < declared, !Self.isEncoded(response) {
                return .failure(
                    context.failure(
                        .network,
                        "\(url.absoluteString): the connection closed after \(state.body.count) of \(declared) bytes"
                            + " (truncated body)"
                    ))
            }
            validator = HTTPValidator(response: response) ?? .sha256(ContentDigest.of(state.body))
            return .success(DataPayload(state.body, source: source))
        }
        end(outcome, validator: validator)
    }

    // MARK: Ending

    /// Decides the outcome once, cancelling the task; does nothing when the transfer had already ended.
    private func end(_ outcome: FlowOperation.Outcome, validator: HTTPValidator? = nil) {
        _ = end(outcome, validator: validator, cancelTask: true)
    }

    /// Fails the transfer when less than ``minimumBytesPerIdleTimeout`` arrived since the last check.
    private func checkPace() {
        let received = state.withLock { state -> Int? in
            guard !state.ended else { return nil }
            defer { state.receivedSinceCheck = 0 }
            return state.receivedSinceCheck
        }
        guard let received, received < Self.minimumBytesPerIdleTimeout else { return }
        end(
            .failure(
                context.failure(
                    .network,
                    "\(url.absoluteString) sent \(received) bytes in \(idleTimeout.shortDescription), less than "
                        + "\(Self.minimumBytesPerIdleTimeout) bytes: the server stalls (raise idleTimeout to wait longer)"
                )
            ))
    }

    /// Decides the outcome once: marks the transfer ended, stops the session, reports.
    /// - Parameter cancelTask: Whether to cancel the task (false when a redirect is being declined and the task
    ///   completes on its own).
    /// - Returns: Whether this call ended the transfer (false when it had already ended).
    private func end(_ outcome: FlowOperation.Outcome, validator: HTTPValidator? = nil, cancelTask: Bool) -> Bool {
        let session = state.withLock { state -> URLSession?? in
            guard !state.ended else { return .none }
            state.ended = true
            state.body = Data()
            defer { state.session = nil }
            return .some(state.session)
        }
        guard case .some(let started) = session else { return false }
        watchdog.withLock { timer in
            timer?.cancel()
            timer = nil
        }
        if let started {
            // Off this thread: `cancel()` waits for the session's work queue, which libcurl keeps busy for as
            // long as data keeps arriving, so the node finishes now and the transfer stops when corelibs gets
            // to it. Ordering with redirect answers still holds: an answer is only given before `ended` is
            // set (under the lock), so it is enqueued before this cancellation.
            DispatchQueue.global().async {
                if cancelTask { started.invalidateAndCancel() } else { started.finishTasksAndInvalidate() }
            }
        }
        completion(outcome, validator)
        return true
    }

    // MARK: Helpers

    /// The failure for a final status that is not 2xx, or `nil`.
    private func statusFailure(_ response: HTTPURLResponse) -> NodeFailure? {
        let status = response.statusCode
        guard !(200..<300).contains(status) else { return nil }
        let answered = response.url ?? url
        var message = "HTTP \(status) \(FetchErrors.reasonPhrase(status)) for \(answered.absoluteString)"
        if answered != url { message += " (redirected from \(url.absoluteString))" }
        if status < 400 { message += ": expected a 2xx response" }
        var failure = context.failure(.http, message)
        failure.httpStatus = status
        failure.isTransient = HTTPRetry.isTransient(status: status)
        failure.retryAfter = Self.header("Retry-After", in: response).flatMap { HTTPRetry.delay(retryAfter: $0) }
        return failure
    }

    private static func isEncoded(_ response: HTTPURLResponse) -> Bool {
        guard let encoding = header("Content-Encoding", in: response)?.lowercased() else { return false }
        return encoding != "identity"
    }

    /// A response header by name, compared case-insensitively.
    static func header(_ name: String, in response: HTTPURLResponse) -> String? {
        let wanted = name.lowercased()
        for (key, value) in response.allHeaderFields where (key as? String)?.lowercased() == wanted {
            return value as? String
        }
        return nil
    }
}
