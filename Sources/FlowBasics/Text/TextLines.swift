/// Splits the bytes of a list or an env file into lines, on bytes: a line ends at `\n`, one `\r` before it is
/// removed (a Windows tool's CRLF), and a last line needs no `\n`.
///
/// Splitting text would not do: Swift reads `\r\n` as one `Character`, so splitting a `String` on `"\n"` never
/// matches a CRLF line end and the whole file becomes one line. A NUL byte is refused rather than kept (a path
/// or a C string ends at it, so an item would silently name something else), and so is a line that is not
/// UTF-8 (decoding it would replace its bytes with U+FFFD): both with the line's number.
package enum TextLines {
    /// Why the bytes are not lines of text.
    package enum Fault: Error, Equatable {
        /// Line `line` (from 1) holds a NUL byte.
        case nul(line: Int)
        /// Line `line` (from 1) is not UTF-8.
        case notUTF8(line: Int)

        /// The line's number, from 1.
        package var line: Int {
            switch self {
            case .nul(let line), .notUTF8(let line): line
            }
        }

        /// The fault in words, naming the line.
        package var message: String {
            switch self {
            case .nul(let line): "line \(line) holds a NUL byte"
            case .notUTF8(let line): "line \(line) is not UTF-8 text"
            }
        }
    }

    /// Calls `body` with each line's number (from 1) and text, in order, until it returns `false`.
    /// - Throws: ``Fault`` for the first line that holds a NUL or is not UTF-8; the lines before it were given.
    package static func forEach(
        in bytes: some Collection<UInt8>, _ body: (_ number: Int, _ line: String) -> Bool
    ) throws(Fault) {
        let result = bytes.withContiguousStorageIfAvailable { buffer in Self.split(buffer, body) }
        if let result { return try result.get() }
        try Array(bytes).withUnsafeBufferPointer { buffer in Self.split(buffer, body) }.get()
    }

    private static func split(_ buffer: UnsafeBufferPointer<UInt8>, _ body: (Int, String) -> Bool) -> Result<
        Void, Fault
    > {
        var start = 0
        var number = 0
        while start < buffer.count {
            number += 1
            var end = start
            while end < buffer.count, buffer[end] != UInt8(ascii: "\n") { end += 1 }
            let next = end + 1
            if end > start, buffer[end - 1] == UInt8(ascii: "\r") { end -= 1 }
            let line = UnsafeBufferPointer(rebasing: buffer[start..<end])
            if line.contains(0) { return .failure(.nul(line: number)) }
            guard let text = String(validating: line, as: UTF8.self) else { return .failure(.notUTF8(line: number)) }
            guard body(number, text) else { return .success(()) }
            start = next
        }
        return .success(())
    }
}
