/// The keys that sign requests. Their description never shows the secret (nor the session token), so a
/// credential that reaches a log, a report or the trace gives nothing away.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key id (not secret: AWS shows it in consoles and logs).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// A temporary credential's session token.
    public var sessionToken: String?

    /// Creates credentials.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The access key id only.
    public var description: String { "S3Credentials(\(accessKeyID), secret redacted)" }
    public var debugDescription: String { description }
}
