import Foundation

/// Writes JSON to a file piece by piece, so a report of a million nodes never exists in memory as one value,
/// and replaces the destination atomically (a temporary file beside it, renamed when complete).
///
/// Values are appended with ``value(_:)`` overloads; the caller writes the punctuation between them. Other
/// streamed documents of the package (the `--html` page) write through ``raw(_:)``.
package struct JSONStream: ~Copyable {
    private let descriptor: Int32
    private let temporaryPath: String
    private let destinationPath: String
    private var buffer: [UInt8] = []
    private static let flushThreshold = 1 << 20

    /// Creates a temporary file beside `path`.
    /// - Throws: The OS's error (`NSPOSIXErrorDomain`), e.g. when the folder does not exist.
    package init(path: String) throws {
        destinationPath = path
        let url = URL(fileURLWithPath: path)
        temporaryPath =
            url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).flowrun-\(UUID().uuidString)").path
        descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.posixError(path: path) }
        buffer.reserveCapacity(Self.flushThreshold + 4096)
    }

    /// Writes what is buffered, closes the file and moves it into place.
    package consuming func commit() throws {
        do {
            try flush()
        } catch {
            abandon()
            throw error
        }
        close(descriptor)
        guard rename(temporaryPath, destinationPath) == 0 else {
            let error = Self.posixError(path: destinationPath)
            unlink(temporaryPath)
            throw error
        }
    }

    /// Drops the temporary file.
    package consuming func abandon() {
        close(descriptor)
        unlink(temporaryPath)
    }

    private static func posixError(path: String) -> NSError {
        NSError(domain: NSPOSIXErrorDomain, code: Int(errno), userInfo: [NSFilePathErrorKey: path])
    }

    /// Appends raw JSON text (punctuation, or a value already encoded).
    package mutating func raw(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    mutating func value(_ text: String) throws {
        buffer.append(UInt8(ascii: "\""))
        // Most text (ids, names, statuses) needs no escaping: copy it whole.
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            buffer.append(contentsOf: text.utf8)
            buffer.append(UInt8(ascii: "\""))
            if buffer.count >= Self.flushThreshold { try flush() }
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                buffer.append(contentsOf: [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    mutating func value(_ number: Int) throws { try raw(String(number)) }

    /// A finite number in Swift's shortest round-tripping form (valid JSON).
    mutating func value(_ number: Double) throws { try raw(number.isFinite ? "\(number)" : "null") }

    /// A time in seconds, to the microsecond (the trace's unit), written without formatting a `Double`.
    mutating func value(seconds: Double) throws {
        guard seconds.isFinite, abs(seconds) < 1e12 else { return try value(seconds) }
        var micros = Int((seconds * 1e6).rounded())
        if micros < 0 {
            buffer.append(UInt8(ascii: "-"))
            micros = -micros
        }
        try raw(String(micros / 1_000_000))
        var fraction = micros % 1_000_000
        guard fraction != 0 else { return }
        var digits = 6
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        buffer.append(UInt8(ascii: "."))
        let text = String(fraction)
        buffer.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits - text.utf8.count))
        try raw(text)
    }

    mutating func value(_ flag: Bool) throws { try raw(flag ? "true" : "false") }

    /// Any `Encodable` through `JSONEncoder`: for the small parts of a document.
    mutating func encoded(_ value: some Encodable, with encoder: JSONEncoder) throws {
        buffer.append(contentsOf: try encoder.encode(value))
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    private mutating func flush() throws {
        var written = 0
        while written < buffer.count {
            let count = buffer[written...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.posixError(path: destinationPath)
            }
            written += count
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
