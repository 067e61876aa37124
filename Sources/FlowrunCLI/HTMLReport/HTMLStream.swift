import FlowBasics
import FlowKit
import Foundation

/// Streams a page to its file through FlowBasics' `JSONWriter` (its `raw` appends text as it is): a temporary file
/// beside the destination, renamed into place when complete (or a FIFO or device written into), so the page
/// appears whole or not at all and is never held in memory as one string.
final class HTMLStream {
    /// A write that failed, with the OS's words.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let path: String
    private var file: JSONWriter?

    /// Opens a temporary file in the destination's folder.
    init(path: String) throws(Failure) {
        self.path = path
        do {
            file = try JSONWriter(path: path)
        } catch {
            throw Self.failure(path, error)
        }
    }

    deinit {
        file.take()?.abandon()
    }

    /// Appends markup as it is.
    func raw(_ text: String) throws(Failure) {
        do {
            try file?.raw(text)
        } catch {
            throw Self.failure(path, error)
        }
    }

    /// Appends text, escaped for element content and attribute values.
    func text(_ text: String) throws(Failure) {
        try raw(MarkupText.escaped(text, for: .html))
    }

    /// Writes what is buffered, closes the file and renames it into place.
    func commit() throws(Failure) {
        guard let file = file.take() else { return }
        do {
            try file.commit()
        } catch {
            throw Self.failure(path, error)
        }
    }

    private static func failure(_ path: String, _ error: any Error) -> Failure {
        if let error = error as? FileWriteError { return Failure(description: error.message) }
        return Failure(description: "cannot write '\(path)': \(RunCommand.reason(error))")
    }
}
