/// Why an S3 request failed, worded for the user: the bucket and key are named, secrets never are.
package struct S3Error: Error, Sendable, CustomStringConvertible {
    /// What kind of failure, for a node's failure code.
    package enum Kind: Sendable {
        /// Bad settings: an endpoint that is not a URL, a profile that does not exist.
        case configuration
        /// The server refused the credentials or the access (403).
        case denied
        /// No such bucket or key (404).
        case notFound
        /// Another answer from the server.
        case service
        /// The connection failed or broke off.
        case network
        /// An object larger than allowed.
        case tooLarge
        /// The request was cancelled.
        case cancelled
    }

    package var kind: Kind
    package var message: String
    /// The HTTP status, when the server answered.
    package var status: Int?
    /// The S3 error code from the answer's body (`NoSuchKey`, `SlowDown` …).
    package var code: String?
    /// Whether another attempt may succeed (throttling, 5xx, a broken connection).
    package var isTransient: Bool

    package var description: String { message }

    /// A failure of `kind`, worded by `message`.
    package init(kind: Kind, message: String, status: Int? = nil, code: String? = nil, isTransient: Bool) {
        self.kind = kind
        self.message = message
        self.status = status
        self.code = code
        self.isTransient = isTransient
    }

    static func configuration(_ message: String) -> S3Error {
        S3Error(kind: .configuration, message: message, isTransient: false)
    }

    static let cancelled = S3Error(kind: .cancelled, message: "the S3 request was cancelled", isTransient: false)

    /// The failure for an error answer, worded from its S3 code where it has one (a HEAD's answer has no body).
    static func answer(status: Int, code: String?, serverMessage: String?, method: String, location: S3Location)
        -> S3Error
    {
        let object = location.key.isEmpty ? "bucket '\(location.bucket)'" : "'\(location)'"
        let detail = " (\(code ?? "no error code"), HTTP \(status))"
        let kind: Kind
        let message: String
        switch (status, code) {
        case (_, "NoSuchBucket"):
            kind = .notFound
            message = "the bucket '\(location.bucket)' does not exist"
        case (_, "NoSuchKey"):
            kind = .notFound
            message = "the bucket '\(location.bucket)' has no object '\(location.key)'"
        case (_, "InvalidAccessKeyId"):
            kind = .denied
            message =
                "the server does not know the access key id used for \(object): check AWS_ACCESS_KEY_ID or the profile"
        case (_, "SignatureDoesNotMatch"):
            kind = .denied
            message =
                "the secret access key does not match the access key id used for \(object): check"
                + " AWS_SECRET_ACCESS_KEY or the profile"
        case (403, _):
            kind = .denied
            message = "access to \(object) was denied"
        case (404, _):
            kind = .notFound
            message = "\(object) was not found"
        default:
            kind = .service
            message = "S3 answered \(method) \(object) with an error"
        }
        var text = message + detail
        if let serverMessage, !serverMessage.isEmpty, kind == .service { text += ": \(serverMessage)" }
        let transient = status == 408 || status == 429 || status >= 500 || code == "SlowDown"
        return S3Error(kind: kind, message: text, status: status, code: code, isTransient: transient)
    }
}
