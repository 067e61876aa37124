import FlowBasics
import Foundation

/// The files the nodes of one run have written, by real path: a write whose path was only known at run time
/// (or reaches a file through another spelling, such as a symbolic link) must not replace a file an earlier
/// node of the same run wrote.
package final class OutputLedger: Sendable {
    private let writers = LockedBox<[String: String]>([:])

    /// Creates an empty ledger; the runner makes one per run.
    package init() {}

    /// Claims a file for a node.
    /// - Returns: `nil` when the file is the node's own (new, or written by an earlier attempt of the node),
    ///   or the id of the node that wrote it earlier in the run.
    package func claim(_ path: String, for nodeID: String) -> String? {
        let key = Self.realPath(path)
        return writers.withLock { writers in
            if let writer = writers[key], writer != nodeID { return writer }
            writers[key] = nodeID
            return nil
        }
    }

    /// How the ledger knows the file a workflow in `directory` names `path`: its real path.
    package static func identity(of path: String, in directory: String) -> String {
        realPath(NodeContext.resolve(path, in: directory))
    }

    /// The path with its folder's symbolic links resolved, when the folder exists; lexically normalised.
    private static func realPath(_ path: String) -> String {
        let lexical = FilePaths.key(of: path, in: ".")
        guard let resolved = realpath(FilePaths.folder(of: lexical), nil) else { return lexical }
        defer { free(resolved) }
        return String(cString: resolved) + "/" + FilePaths.name(of: lexical)
    }
}
