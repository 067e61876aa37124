import Crypto
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The S3 requests flowrun makes — get, head, put (whole or multipart), list — signed with Signature V4 (or
/// anonymous), each waited for by the calling thread and stoppable through an ``S3Cancellation``.
///
/// Throttling (503 SlowDown), 5xx and broken connections are tried again up to ``maxAttempts`` times in all,
/// as the AWS SDKs' standard mode does, after an exponential back-off with full jitter; a node's `retries`
/// and `timeout` bound it further. At most ``connectionsPerEndpoint`` requests go to one endpoint at once, over
/// the sessions kept for it (`S3SessionPool`), which reuse their connections.
package struct S3Client: Sendable {
    /// Attempts per request, the first included.
    package static let maxAttempts = 3
    /// Concurrent requests to one endpoint from this process.
    package static let connectionsPerEndpoint = 16
    /// The back-off before the first retry; it doubles with each retry, up to 5 s.
    static let baseDelay: Duration = .milliseconds(100)

    package let configuration: S3Configuration

    /// A client for `configuration`.
    package init(configuration: S3Configuration) {
        self.configuration = configuration
    }

    /// A client configured from the environment and the AWS files (``S3Configuration/resolve(environment:home:)``).
    package static func fromEnvironment() throws(S3Error) -> S3Client {
        S3Client(configuration: try S3Configuration.resolve())
    }

    /// One request, as built before signing.
    struct Call {
        var method: String
        var location: S3Location
        var query: [(name: String, value: String)] = []
        var headers: [String: String] = [:]
        var body: Data?
        /// The most body bytes accepted in a success answer: by default as many as of an error answer, for the
        /// answers that are not an object's bytes (a PUT's, a multipart upload's).
        var maxBytes = S3Exchange.errorBodyLimit
        /// How long a success answer's body may take to come whole, from its headers: `nil` for an object's bytes
        /// (which the node's `timeout` bounds), a bound for every other answer, which flowrun holds in memory.
        var bodyDeadline: Duration? = S3Exchange.answerBodyDeadline
    }

    /// Sends `call`, retrying transient failures; returns the 2xx answer.
    func send(_ call: Call, cancellation: S3Cancellation?) throws(S3Error) -> S3Exchange.Response {
        let request = try makeRequest(call)
        let endpoint = EndpointLimit.semaphore(for: request.endpoint)
        var attempt = 1
        while true {
            if cancellation?.isCancelled == true { throw .cancelled }
            endpoint.wait()
            let result = S3Exchange.perform(
                request.signed(self, call), endpoint: request.endpoint, body: call.body, maxBytes: call.maxBytes,
                bodyDeadline: call.bodyDeadline, cancellation: cancellation)
            endpoint.signal()
            let failure: S3Error
            switch result {
            case .success(let response) where (200..<300).contains(response.status):
                return response
            case .success(let response):
                let xml = S3XML.parse(response.body)
                failure = .answer(
                    status: response.status, code: xml?.values["Code"], serverMessage: xml?.values["Message"],
                    method: call.method, location: call.location)
            case .failure(.cancelled):
                throw .cancelled
            case .failure(.tooLarge):
                throw S3Error(
                    kind: .tooLarge, message: "'\(call.location)' is larger than maxBytes (\(call.maxBytes) bytes)",
                    isTransient: false)
            case .failure(.transport(let reason)):
                failure = S3Error(
                    kind: .network, message: "\(call.method) '\(call.location)' failed: \(reason)", isTransient: true)
            }
            guard failure.isTransient, attempt < Self.maxAttempts else { throw failure }
            try Self.backOff(attempt: attempt, cancellation: cancellation)
            attempt += 1
        }
    }

    /// Waits a random time up to `base · 2^(attempt-1)` (full jitter, capped at 5 s), waking early on cancel.
    private static func backOff(attempt: Int, cancellation: S3Cancellation?) throws(S3Error) {
        let ceiling = min(5.0, 0.1 * Double(1 << min(attempt - 1, 6)))
        let deadline = Date().addingTimeInterval(Double.random(in: 0...ceiling))
        while Date() < deadline {
            if cancellation?.isCancelled == true { throw .cancelled }
            Thread.sleep(forTimeInterval: min(0.05, max(0, deadline.timeIntervalSinceNow)))
        }
    }

    /// The URL for `call`: path-style under a custom endpoint, virtual-hosted on AWS where the bucket allows.
    /// A location with `.` or `..` segments is refused (``S3Location/dotSegmentProblem``): whichever way it came
    /// (a workflow, a listing, an item), no request goes to a key or bucket other than the one it names.
    func makeRequest(_ call: Call) throws(S3Error) -> UnsignedRequest {
        if let problem = call.location.dotSegmentProblem { throw .configuration(problem) }
        let bucket = call.location.bucket
        let key = S3Signer.encode(call.location.key, keepSlash: true)
        var base: String
        var path: String
        if let endpoint = configuration.endpoint {
            base = "\(endpoint.scheme ?? "https")://\(endpoint.host ?? "")"
            if let port = endpoint.port { base += ":\(port)" }
            path = "/" + S3Signer.encode(bucket) + "/" + key
        } else if !bucket.contains("."), bucket.lowercased() == bucket {
            base = "https://\(bucket).s3.\(configuration.region).amazonaws.com"
            path = "/" + key
        } else {
            base = "https://s3.\(configuration.region).amazonaws.com"
            path = "/" + S3Signer.encode(bucket) + "/" + key
        }
        let query = call.query
            .map { (name: String, value: String) -> (String, String) in (S3Signer.encode(name), S3Signer.encode(value))
            }
            .sorted(by: S3Signer.queryOrder)
            .map { (name: String, value: String) -> String in "\(name)=\(value)" }
        let text = base + path + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
        guard let url = URL(string: text), let host = url.host else {
            throw .configuration("cannot make a URL for '\(call.location)'")
        }
        var hostHeader = host
        if let port = url.port, !(port == 80 && url.scheme == "http"), !(port == 443 && url.scheme == "https") {
            hostHeader += ":\(port)"
        }
        return UnsignedRequest(url: url, host: hostHeader, path: path)
    }

    /// A request's URL before its (per-attempt, time-stamped) signature.
    struct UnsignedRequest {
        let url: URL
        let host: String
        let path: String

        /// Where it connects: scheme, host and port. Requests to one endpoint share its connections and its bound.
        var endpoint: String { "\(url.scheme ?? "")://\(url.host ?? ""):\(url.port ?? 0)" }

        func signed(_ client: S3Client, _ call: S3Client.Call) -> URLRequest {
            var request = URLRequest(url: url)
            request.httpMethod = call.method
            var headers = call.headers
            if let credentials = client.configuration.credentials {
                let payloadHash = call.body.map { S3Signer.hex(SHA256.hash(data: $0)) } ?? S3Signer.emptyHash
                let signer = S3Signer(credentials: credentials, region: client.configuration.region)
                headers = signer.sign(
                    S3Signer.Request(method: call.method, path: path, query: call.query, headers: call.headers),
                    host: host, payloadHash: payloadHash, date: Date())
            }
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            return request
        }
    }
}

/// The per-endpoint bound on concurrent requests, shared by every client in the process.
private enum EndpointLimit {
    private static let semaphores = Mutex<[String: DispatchSemaphore]>([:])

    static func semaphore(for endpoint: String) -> DispatchSemaphore {
        semaphores.withLock { all in
            if let existing = all[endpoint] { return existing }
            let made = DispatchSemaphore(value: S3Client.connectionsPerEndpoint)
            all[endpoint] = made
            return made
        }
    }
}
