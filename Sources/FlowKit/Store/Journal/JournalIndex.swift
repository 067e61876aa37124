import FlowBasics

#if canImport(Glibc)
    import Glibc
#endif

/// The latest record of each node as of a point in the journal, in a file beside it (`NAME.yaml.index`): a run
/// opens a store of 200,000 records by reading this and the journal's few bytes past that point, not the whole
/// journal, and turns into a ``JournalRecord`` only the records its decisions ask for.
///
/// Layout (integers little-endian, counts as LEB128):
/// - the magic line, then the fixed header: the journal's inode, how many of its bytes the index covers, the
///   CRC-32C of the last (up to) 64 KiB of them, how many records they hold, the number of entries and of slots,
///   and the lengths of the runs block and of the data;
/// - the runs the records name, as length-prefixed strings;
/// - one entry a node: its key (32 bytes, as ``NodeKey`` holds them: four 64-bit words), its run (4 bytes: a position in the runs) and where its record is in
///   the data (4 bytes);
/// - the slots: a power of two of them, more than the entries, each an entry's number + 1 or 0, found from a
///   64-bit FNV-1a hash of the node id and probed linearly;
/// - the data: per entry, its node id, where its inputs are in the journal, and what it left (file, value);
///   entries and data are in the order of the node ids' bytes;
/// - the CRC-32C of everything before it.
///
/// The file is mapped, not read into memory: its pages are the page cache's, counted to the process only while it
/// touches them, and given back once the decisions are made (``releasePages()``). A mapped file cut short under
/// the mapping would fault; the store's files are only replaced whole (``AtomicFile``), under its lock.
///
/// The index is a copy of what the journal says, never the only copy: one that is damaged, cut short, or of
/// another journal (a compaction renamed a new one into place; a damaged tail was cut off) is ignored and the
/// journal replayed, so it can never make a node `cached` that the journal would not.
final class JournalIndex: @unchecked Sendable {
    // @unchecked: the bytes are mapped read-only and never written.
    static let magic = Array("flowrun index 1\n".utf8)
    /// The magic, then inode, covered length, window checksum, record count, entries, slots, runs and data lengths.
    static let headerLength = magic.count + 8 + 8 + 4 + 8 + 4 + 4 + 4 + 4
    static let entryLength = 32 + 4 + 4
    /// How much of the journal's covered end the index checks it against.
    static let windowLength = 64 << 10

    /// The index file of a journal.
    static func path(ofJournal journal: String) -> String {
        String(journal.dropLast(".journal".count)) + ".index"
    }

    /// How many bytes of the journal the index covers: the records after them are read from the journal.
    let coveredLength: Int
    /// How many records those bytes hold, superseded ones included.
    let recordCount: Int
    /// How many nodes have an entry.
    let count: Int
    /// The journal the records' inputs are read from.
    let journal: JournalFile
    /// The runs that recorded the entries (an entry names one by its position).
    let runs: [String]
    private let bytes: UnsafeRawBufferPointer
    private let entriesStart: Int
    private let slotsStart: Int
    private let slotMask: Int
    private let dataStart: Int
    /// How many bytes the records' data takes.
    let dataLength: Int

    private init(bytes: UnsafeRawBufferPointer, header: Header, runs: [String], journal: JournalFile) {
        self.bytes = bytes
        coveredLength = header.coveredLength
        recordCount = header.recordCount
        count = header.entries
        self.runs = runs
        self.journal = journal
        entriesStart = Self.headerLength + header.runsLength
        slotsStart = entriesStart + header.entries * Self.entryLength
        slotMask = header.slots - 1
        dataStart = slotsStart + header.slots * 4
        dataLength = header.dataLength
    }

    deinit {
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
    }

    /// The fixed header's numbers.
    struct Header {
        var inode: UInt64
        var coveredLength: Int
        var window: UInt32
        var recordCount: Int
        var entries: Int
        var slots: Int
        var runsLength: Int
        var dataLength: Int
    }

    /// Reads the index at `path` if it is intact and of the journal open at `descriptor` as it is now; `nil`
    /// otherwise (missing, damaged, stale), and the journal is read instead.
    static func load(atPath path: String, journal descriptor: Int32, file: JournalFile) -> JournalIndex? {
        guard case .success(let opened) = RegularFile.open(path, owned: true) else { return nil }
        let index = opened.descriptor
        defer { close(index) }
        let info = opened.status
        guard info.st_size >= headerLength + 4,
            info.st_size <= Int(UInt32.max)
        else { return nil }
        let size = Int(info.st_size)
        guard let bytes = map(index, size: size) else { return nil }
        guard bytes.starts(with: magic),
            checksum(of: bytes, before: size - 4)
                == bytes.loadUnaligned(fromByteOffset: size - 4, as: UInt32.self).littleEndian,
            let header = Header(bytes), header.fits(size: size),
            header.describes(journal: descriptor),
            let runs = runs(
                in: UnsafeRawBufferPointer(rebasing: bytes[headerLength..<(headerLength + header.runsLength)]))
        else {
            munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress), size)
            return nil
        }
        return JournalIndex(bytes: bytes, header: header, runs: runs, journal: file)
    }

    /// Gives the pages of the index the process touched back to the page cache: they stay valid and are read
    /// again from there if asked for. A run calls it once its decisions are made, so the index does not add to
    /// what the run itself takes.
    func releasePages() {
        Self.release(bytes)
    }

    /// The entry of a node, or `nil` when the index has none.
    /// - Parameter previous: The entry of the node looked up before, if any: entries are in the order of their
    ///   node ids, which a plan's nodes mostly follow, so the next entry is tried first; a run looking up its
    ///   nodes in order then reads the index front to back instead of jumping through the slots.
    func entry(of node: String, after previous: Int? = nil) -> Int? {
        var node = node
        return node.withUTF8 { id in
            if let previous, previous + 1 < count, nodeBytes(of: previous + 1).elementsEqual(UnsafeRawBufferPointer(id))
            {
                return previous + 1
            }
            var slot = Int(truncatingIfNeeded: Self.hash(UnsafeRawBufferPointer(id))) & slotMask
            while true {
                let found = Int(load(UInt32.self, at: slotsStart + slot * 4))
                guard found > 0, found <= count else { return nil }
                if nodeBytes(of: found - 1).elementsEqual(UnsafeRawBufferPointer(id)) { return found - 1 }
                slot = (slot + 1) & slotMask
            }
        }
    }

    /// The key of an entry, read in place.
    func key(of entry: Int) -> NodeKey {
        bytes.loadUnaligned(fromByteOffset: entryStart(entry), as: NodeKey.self)
    }

    /// The record of an entry, decoded; `nil` when its bytes do not decode (which a checksummed index of this
    /// format never has).
    func record(of entry: Int) -> JournalRecord? {
        let run = run(of: entry)
        guard run < runs.count, var reader = dataReader(of: entry) else { return nil }
        return JournalRecord(indexed: &reader, run: runs[run], key: key(of: entry), journal: journal)
    }

    /// The run that recorded an entry.
    func run(of entry: Int) -> Int { Int(load(UInt32.self, at: entryStart(entry) + 32)) }

    /// The bytes an entry's record takes in the data, to copy it whole into a new index.
    func data(of entry: Int) -> UnsafeRawBufferPointer? {
        guard var reader = dataReader(of: entry) else { return nil }
        let start = reader.position
        guard reader.skipIndexedRecord() else { return nil }
        // The reader's positions are in the data, not in the file.
        return UnsafeRawBufferPointer(rebasing: bytes[(dataStart + start)..<(dataStart + reader.position)])
    }

    private func entryStart(_ entry: Int) -> Int { entriesStart + entry * Self.entryLength }

    private func dataReader(of entry: Int) -> IndexReader? {
        let offset = Int(load(UInt32.self, at: entryStart(entry) + 36))
        guard offset < dataLength else { return nil }
        return IndexReader(UnsafeRawBufferPointer(rebasing: bytes[dataStart..<(dataStart + dataLength)]), at: offset)
    }

    private func nodeBytes(of entry: Int) -> UnsafeRawBufferPointer {
        guard var reader = dataReader(of: entry), let node = reader.field() else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return node
    }

    private func load<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// FNV-1a, 64 bits: the same in every process (Swift's `Hasher` is seeded per process).
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return hash
    }

    /// The bytes of a journal an index checks it by: the last 64 KiB before `end`, after the magic.
    static func window(endingAt end: Int) -> Range<Int> {
        max(Journal.magic.count, end - windowLength)..<end
    }

    private static func runs(in bytes: UnsafeRawBufferPointer) -> [String]? {
        var reader = IndexReader(bytes, at: 0)
        var runs: [String] = []
        while !reader.isAtEnd {
            guard let run = reader.field() else { return nil }
            runs.append(String(decoding: run, as: UTF8.self))
        }
        return runs
    }

    /// The file open at `descriptor`, of `size` bytes, mapped read-only; `nil` when it cannot be.
    private static func map(_ descriptor: Int32, size: Int) -> UnsafeRawBufferPointer? {
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0),
            address != UnsafeMutableRawPointer(bitPattern: -1)
        else { return nil }
        return UnsafeRawBufferPointer(start: address, count: size)
    }

    /// The CRC-32C of the first `end` bytes, a piece at a time, each piece's pages given back once checked: the
    /// whole file passes through, not into, the process's memory.
    private static func checksum(of bytes: UnsafeRawBufferPointer, before end: Int) -> UInt32 {
        let pieceBytes = 1 << 20
        var checksum: UInt32 = 0
        for start in stride(from: 0, to: end, by: pieceBytes) {
            let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<min(end, start + pieceBytes)])
            checksum = CRC32C.checksum(piece, continuing: checksum)
            release(piece)
        }
        return checksum
    }

    /// Drops the pages of a piece of the mapping from the process (they are the file's, unchanged, so nothing is
    /// lost): the whole pages inside it only, as the piece's ends may share a page with bytes still in use.
    private static func release(_ piece: UnsafeRawBufferPointer) {
        guard let base = piece.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = (Int(bitPattern: base) + page - 1) / page * page
        let end = (Int(bitPattern: base) + piece.count) / page * page
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        madvise(address, end - start, MADV_DONTNEED)
    }
}

extension JournalIndex.Header {
    /// Reads the header after the magic; `nil` when a number cannot be one.
    init?(_ bytes: UnsafeRawBufferPointer) {
        var offset = JournalIndex.magic.count
        func next<T: FixedWidthInteger>(_: T.Type) -> T {
            defer { offset += MemoryLayout<T>.size }
            return T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        }
        inode = next(UInt64.self)
        guard let covered = Int(exactly: next(UInt64.self)) else { return nil }
        coveredLength = covered
        window = next(UInt32.self)
        guard let records = Int(exactly: next(UInt64.self)) else { return nil }
        recordCount = records
        entries = Int(next(UInt32.self))
        slots = Int(next(UInt32.self))
        runsLength = Int(next(UInt32.self))
        dataLength = Int(next(UInt32.self))
    }

    /// Whether the parts add up to a file of `size` bytes, with more slots than entries (so every probe ends at
    /// an empty one) in a power of two.
    func fits(size: Int) -> Bool {
        slots > entries && slots & (slots - 1) == 0
            && JournalIndex.headerLength + runsLength + entries * JournalIndex.entryLength + slots * 4 + dataLength + 4
                == size
    }

    /// Whether the journal open at `descriptor` is the one indexed: the same file, at least as long, with the same
    /// bytes before the point covered.
    func describes(journal descriptor: Int32) -> Bool {
        var info = stat()
        guard fstat(descriptor, &info) == 0, UInt64(info.st_ino) == inode, Int(info.st_size) >= coveredLength,
            coveredLength >= Journal.magic.count
        else { return false }
        return JournalIndex.windowChecksum(of: descriptor, endingAt: coveredLength) == window
    }
}

extension JournalIndex {
    /// The checksum of the journal's window before `end`; `nil` when it cannot be read.
    static func windowChecksum(of descriptor: Int32, endingAt end: Int) -> UInt32? {
        JournalFile.read(descriptor, window(endingAt: end)).map { CRC32C.checksum($0[...]) }
    }
}
