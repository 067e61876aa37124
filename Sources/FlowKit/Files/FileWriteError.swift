import Foundation

/// A file that could not be written, with its path and the OS's reason.
package struct FileWriteError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file meant to be written.
    package var path: String
    /// What went wrong, naming the path.
    package var message: String
    package var description: String { message }

    /// A failure described in full.
    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// "cannot write 'PATH': WHAT: REASON", the reason being `errno`'s text.
    package init(path: String, _ what: String, errno code: Int32) {
        self.init(path: path, message: "cannot write '\(path)': \(what): \(String(cString: strerror(code)))")
    }
}
