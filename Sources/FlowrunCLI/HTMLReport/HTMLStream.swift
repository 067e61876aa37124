import Foundation

/// Streams a page to a temporary file beside its destination and renames it into place when complete, so the
/// page appears whole or not at all and is never held in memory as one string.
final class HTMLStream {
    /// A write that failed, with the OS's words.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let path: String
    private let temporary: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var committed = false
    private static let flushThreshold = 1 << 16

    /// Opens a temporary file in the destination's folder.
    init(path: String) throws(Failure) {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        var template = Array(
            ((folder.isEmpty ? "." : folder) + "/.flowrun-" + (path as NSString).lastPathComponent + ".XXXXXX")
                .utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { $0.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw Self.failure("cannot create a temporary file for '\(path)'") }
        self.fd = fd
        temporary = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        buffer.reserveCapacity(Self.flushThreshold * 2)
    }

    deinit {
        if !committed {
            close(fd)
            unlink(temporary)
        }
    }

    /// Appends markup as it is.
    func raw(_ text: String) throws(Failure) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Appends text, escaped for element content and attribute values.
    func text(_ text: String) throws(Failure) {
        try raw(Self.escape(text))
    }

    /// Writes what is buffered, closes the file and renames it into place.
    func commit() throws(Failure) {
        try flush()
        fchmod(fd, 0o644)
        close(fd)
        committed = true
        guard rename(temporary, path) == 0 else {
            let error = Self.failure("cannot write '\(path)'")
            unlink(temporary)
            throw error
        }
    }

    private func flush() throws(Failure) {
        let error: Int32 = buffer.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return 0 }
            var offset = 0
            while offset < raw.count {
                let written = Foundation.write(fd, base + offset, raw.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return 0
        }
        buffer.removeAll(keepingCapacity: true)
        if error != 0 { throw Failure(description: "cannot write '\(path)': \(String(cString: strerror(error)))") }
    }

    /// `&`, `<`, `>`, `"` and `'` as entities: safe in content and in quoted attributes.
    static func escape(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == 38 || $0 == 60 || $0 == 62 || $0 == 34 || $0 == 39 }) else {
            return text
        }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 16)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    private static func failure(_ what: String) -> Failure {
        Failure(description: "\(what): \(String(cString: strerror(errno)))")
    }
}
