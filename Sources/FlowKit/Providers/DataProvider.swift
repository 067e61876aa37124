import Foundation

/// Bytes flowing between nodes, with where they came from.
public struct DataPayload: Sendable {
    /// The bytes.
    public var bytes: Data
    /// Where the bytes came from: a URL or a path, for messages and `${item.stem}`-style naming.
    public var source: String

    /// Creates a payload.
    public init(_ bytes: Data, source: String) {
        self.bytes = bytes
        self.source = source
    }
}

/// An operation whose output is bytes (kind ``ProviderKind/data``), e.g. `fetch`.
///
/// ## Implementation requirements
///
/// Return the payload once the operation has finished successfully, and `nil` before that or after the
/// runner released the output. Built-in operations implement it as `output(as: DataPayload.self)`.
public protocol DataProvider: AnyObject, Sendable {
    /// The bytes this operation produced.
    var providedData: DataPayload? { get }
}
