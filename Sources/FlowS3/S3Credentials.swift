/// The keys that sign requests. Their description never shows the secret (nor the session token), so a
/// credential that reaches a log, a report or the trace gives nothing away.
package struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key id (not secret: AWS shows it in consoles and logs).
    package var accessKeyID: String
    /// The secret access key.
    package var secretAccessKey: String
    /// A temporary credential's session token.
    package var sessionToken: String?

    /// Creates credentials.
    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The access key id only.
    package var description: String { "S3Credentials(\(accessKeyID), secret redacted)" }
    package var debugDescription: String { description }
}
