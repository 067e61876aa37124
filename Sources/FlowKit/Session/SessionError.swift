import Foundation

/// Why a ``RunSession`` ran nothing, or could not finish what it ran: a request that names what is not there, a
/// store held by another run, or the parts of a split run that are missing.
public struct SessionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem it is, for a caller that acts on it (a command line picks its exit code by it).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case unknownTask, storeBusy, storeUnavailable, storeRequired, valuesMissing, shardsMissing
            case shardReportUnreadable, shardReportNotWritten
        }
        private let value: Value

        /// The options name a task the workflow does not have (``SessionOptions/rerun``).
        public static let unknownTask = Code(value: .unknownTask)
        /// Another run holds the store's lock.
        public static let storeBusy = Code(value: .storeBusy)
        /// The store cannot be used, and the run needs it.
        public static let storeUnavailable = Code(value: .storeUnavailable)
        /// The run needs the store, and the options say not to use it.
        public static let storeRequired = Code(value: .storeRequired)
        /// Values the gather phase reads are not in the store.
        public static let valuesMissing = Code(value: .valuesMissing)
        /// Shards of a split run have not finished.
        public static let shardsMissing = Code(value: .shardsMissing)
        /// The shards' reports cannot be read, or belong to different splits.
        public static let shardReportUnreadable = Code(value: .shardReportUnreadable)
        /// A shard's report, which its gather phase reads, cannot be written.
        public static let shardReportNotWritten = Code(value: .shardReportNotWritten)

        /// The code's name.
        public var description: String { value.rawValue }
    }

    /// What kind of problem it is.
    public var code: Code
    /// What is wrong and what to do, in one line without `error:`.
    public var message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message, ending with what was not done ("nothing was run").
    public var description: String { message }

    /// The OS's words for a failed file operation ("No space left on device") rather than Foundation's
    /// "The operation could not be completed. (NSCocoaErrorDomain error 512.)".
    package static func reason(_ error: any Error) -> String {
        var current = error as NSError
        // On Linux the underlying error is stored as a Swift `Error`, which `as? NSError` does not match.
        while let underlying = current.userInfo[NSUnderlyingErrorKey] as? any Error { current = underlying as NSError }
        if current.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(current.code))) }
        return error.localizedDescription
    }
}
