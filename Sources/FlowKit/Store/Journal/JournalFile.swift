#if canImport(Glibc)
    import Glibc
#endif

/// A journal file held open while its records are in use, so a record's inputs are read from it only when asked
/// (``JournalRecord/inputs``).
///
/// Records are read from the bytes a reading checked: appends after them and the atomic rename of a compaction
/// leave those bytes as they were in this open file.
final class JournalFile: Sendable {
    private let descriptor: Int32

    init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// The bytes at `range`, or `nil` when they cannot all be read.
    func read(_ range: Range<Int>) -> [UInt8]? {
        Self.read(descriptor, range)
    }

    /// The bytes at `range` of the file open at `descriptor`, or `nil` when they cannot all be read.
    static func read(_ descriptor: Int32, _ range: Range<Int>) -> [UInt8]? {
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initialized in
            initialized = 0
            while initialized < range.count {
                let result = pread(
                    descriptor, buffer.baseAddress.map { $0 + initialized }, range.count - initialized,
                    off_t(range.lowerBound + initialized))
                if result < 0, errno == EINTR { continue }
                guard result > 0 else {
                    failed = true
                    return
                }
                initialized += result
            }
        }
        return failed ? nil : bytes
    }
}

/// Reads a file front to back in chunks, giving out byte ranges that may straddle them; memory is one chunk, or
/// one record where a record is larger.
struct ChunkReader {
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    /// The file offset of `buffer`'s first byte.
    private var base = 0
    /// The file offset up to which it has been read.
    private(set) var end = 0
    /// Whether a read failed (not the end of the file).
    private(set) var failed = false
    private var atEndOfFile = false
    static let chunkBytes = 1 << 20

    /// A reader from the file's offset `start` on.
    init(descriptor: Int32, from start: Int = 0) {
        self.descriptor = descriptor
        base = start
        end = start
        failed = start > 0 && lseek(descriptor, off_t(start), SEEK_SET) < 0
    }

    /// The `count` bytes at file offset `offset` (not before what was given out last), or `nil` when the file ends
    /// first or cannot be read.
    mutating func bytes(at offset: Int, count: Int) -> ArraySlice<UInt8>? {
        while end < offset + count {
            guard !atEndOfFile, !failed else { return nil }
            // What is before `offset` is done with.
            if offset > base {
                buffer.removeFirst(min(offset - base, buffer.count))
                base = offset
            }
            let wanted = max(Self.chunkBytes, offset + count - end)
            let old = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: wanted))
            let result = buffer.withUnsafeMutableBytes { raw in
                Glibc.read(descriptor, raw.baseAddress.map { $0 + old }, wanted)
            }
            if result < 0, errno == EINTR {
                buffer.removeSubrange(old...)
                continue
            }
            buffer.removeSubrange((old + max(result, 0))...)
            if result < 0 { failed = true } else if result == 0 { atEndOfFile = true } else { end += result }
        }
        return buffer[(offset - base)..<(offset - base + count)]
    }
}
