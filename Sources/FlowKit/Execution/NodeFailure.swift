/// Why a node failed at run time: a code, a message that says what to do, the node, the underlying cause and
/// where the task was written.
public struct NodeFailure: Error, Sendable, CustomStringConvertible {
    /// A small, stable classification of failures. Grows over time, so it wraps a private enum.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidInput, io, network, http, timedOut, cancelled, upstream, tooLarge, unsupported, process,
                notNeeded, internalError
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The input was not what the task can work with (a corrupt image, the wrong kind of data).
        public static let invalidInput = Code(.invalidInput)
        /// Reading or writing a file failed.
        public static let io = Code(.io)
        /// A transfer failed below HTTP (refused, reset, DNS).
        public static let network = Code(.network)
        /// A server answered with an error status.
        public static let http = Code(.http)
        /// The node ran longer than its `timeout`.
        public static let timedOut = Code(.timedOut)
        /// The run was cancelled (Ctrl-C, SIGTERM, fail-fast), or the embedding app cancelled the node.
        public static let cancelled = Code(.cancelled)
        /// A node upstream failed or was cancelled, so this one was skipped.
        public static let upstream = Code(.upstream)
        /// The input was larger than allowed.
        public static let tooLarge = Code(.tooLarge)
        /// The input uses a feature the task does not support.
        public static let unsupported = Code(.unsupported)
        /// An external program failed.
        public static let process = Code(.process)
        /// Not a failure: the node had nothing to do for its input and was skipped, saying why
        /// (``FlowOperation/Outcome/skipped(_:)``).
        public static let notNeeded = Code(.notNeeded)
        /// A bug in flowrun or in a task: please report it.
        public static let internalError = Code(.internalError)

        /// The code's name, as reports write it.
        public var description: String { base.rawValue }
    }

    /// The classification.
    public var code: Code
    /// What happened and, where it helps, what to do about it.
    public var message: String
    /// The node that failed, e.g. `fetch[3]`; filled in by the runner when a task leaves it empty.
    public var nodeID: String
    /// The error underneath, if any.
    public var cause: (any Error)?
    /// Where the failing task is written in the workflow.
    public var location: SourceLocation?
    /// Whether another attempt could succeed. A failure that would repeat (an HTTP 404, a missing file) is
    /// not retried unless the task's `retryOn` asks for it.
    public var isTransient = true
    /// The HTTP status the failure comes from, for `retryOn: [status: N]`.
    public var httpStatus: Int?
    /// How long the server asked to wait before another attempt (`Retry-After`); the runner waits that long
    /// instead of its backoff, at most the task's timeout.
    public var retryAfter: Duration?

    /// Creates a failure.
    public init(
        _ code: Code, _ message: String, node nodeID: String = "", cause: (any Error)? = nil,
        location: SourceLocation? = nil
    ) {
        self.code = code
        self.message = message
        self.nodeID = nodeID
        self.cause = cause
        self.location = location
    }

    /// The failure, marked as one that another attempt would only repeat.
    public func permanent() -> NodeFailure {
        var failure = self
        failure.isTransient = false
        return failure
    }

    /// The message, as the summary prints it after the node id.
    public var description: String { message }
}

extension NodeFailure {
    /// The failure of a node whose parameters did not resolve when it was about to run: its errors' messages,
    /// at the first one's place in the file, never retried (the same values would fail again).
    init(invalidParameters diagnostics: Diagnostics, node nodeID: String) {
        let errors = diagnostics.sorted.filter { $0.severity == .error }
        self.init(
            .invalidInput, errors.map(\.message).joined(separator: "; "), node: nodeID,
            location: errors.first?.location)
        isTransient = false
    }
}

/// The operation of a node that cannot run: it finishes at once with its failure, so the node ends as any
/// failed node does (reported, dependents skipped) without its task's operation being made.
final class FailedOperation: FlowOperation, @unchecked Sendable {
    private let cause: NodeFailure

    init(context: NodeContext, failure: NodeFailure) {
        cause = failure
        super.init(context: context)
    }

    override func execute() {
        finish(.failure(cause))
    }
}
