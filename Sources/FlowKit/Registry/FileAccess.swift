/// The files one node reads and writes, as its resolved parameters name them (relative paths are relative to
/// the workflow's folder).
///
/// Validation compares them across every node of a plan: two nodes writing one file, or a node writing a file
/// the workflow reads, is an error before anything runs.
public struct FileAccess: Sendable, Equatable {
    /// A path and the parameter that names it, so a diagnostic can point at it.
    public struct File: Sendable, Equatable {
        /// The path, after interpolation.
        public var path: String
        /// The parameter whose value it is.
        public var parameter: String

        /// Names a file by its path and the parameter holding it.
        public init(_ path: String, from parameter: String) {
            self.path = path
            self.parameter = parameter
        }
    }

    /// The files the node reads.
    public var reads: [File]
    /// The files the node writes.
    public var writes: [File]

    /// Creates a description of a node's files.
    public init(reads: [File] = [], writes: [File] = []) {
        self.reads = reads
        self.writes = writes
    }

    /// A node that touches no file a workflow names.
    public static let none = FileAccess()
}
