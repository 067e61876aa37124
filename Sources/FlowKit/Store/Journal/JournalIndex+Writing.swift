import FlowBasics

#if canImport(Glibc)
    import Glibc
#endif

extension JournalIndex {
    /// Makes an index one record at a time: a run's records as it appends them, each replacing an earlier one of
    /// its node, then the records the store held before, where none of the run's replaced them; no table of
    /// records on the side.
    struct Builder {
        /// A node's latest record so far: its key and run, and where its bytes are in ``data`` (in 4 bytes, as the
        /// format's offsets are). 48 bytes, one a node: a cold run of 200,000 nodes builds the index as it goes.
        private struct Entry {
            var key: NodeKey
            var run: UInt32
            var offset: UInt32
            var length: UInt32
            /// The low half of its node id's hash, which is all a table of up to 2^32 slots places by: probes
            /// compare ids only when these match, and growing needs no id.
            var hash: UInt32
        }

        private var runs: [String] = []
        private var runPositions: [String: UInt32] = [:]
        private var lastRun: (run: String, position: UInt32)?
        private var entries: [Entry] = []
        /// The entries by node id (an entry's number + 1, or 0): what finds a node added before.
        private var slots = [UInt32](repeating: 0, count: 1024)
        private var data = ByteWriter()
        /// How many records the journal holds, superseded ones included.
        var recordCount = 0

        /// A builder with room for up to `entries` entries and `dataBytes` bytes of data: room never used costs
        /// address space, not memory, and a table grown by doubling would hold up to twice its bytes, and both
        /// while it is copied.
        init(entries: Int, dataBytes: Int) {
            self.entries.reserveCapacity(entries)
            data.bytes.reserveCapacity(dataBytes)
        }

        /// Makes room for `entries` more entries and `dataBytes` more bytes of data (``init(entries:dataBytes:)``).
        mutating func reserveCapacity(entries: Int, dataBytes: Int) {
            self.entries.reserveCapacity(self.entries.count + entries)
            data.bytes.reserveCapacity(data.bytes.count + dataBytes)
        }

        /// Adds the record of an entry of another index, copying its bytes, unless a record of its node is in
        /// already (a later one: the index is of what came before); `false` when they do not decode.
        mutating func addEarlier(entry: Int, of index: JournalIndex) -> Bool {
            guard let bytes = index.data(of: entry), index.run(of: entry) < index.runs.count else { return false }
            var reader = IndexReader(bytes, at: 0)
            guard let node = reader.field() else { return false }
            return add(node: node, key: index.key(of: entry), run: index.runs[index.run(of: entry)], replacing: false) {
                data in
                data.bytes.append(contentsOf: bytes)
            }
        }

        /// Adds a record read from the journal, unless a record of its node is in already (a later one); `false`
        /// for one whose inputs are not in the journal.
        mutating func addEarlier(_ record: JournalRecord) -> Bool {
            guard case .inJournal(_, let inputs) = record.recordedInputs else { return false }
            return add(record, inputsAt: inputs, replacing: false)
        }

        /// Adds a record whose inputs are at `inputs` in the journal (one just framed for it), replacing an
        /// earlier one of its node.
        mutating func add(_ record: JournalRecord, inputsAt inputs: Range<Int>) -> Bool {
            add(record, inputsAt: inputs, replacing: true)
        }

        private mutating func add(_ record: JournalRecord, inputsAt inputs: Range<Int>, replacing: Bool) -> Bool {
            var node = record.node
            return node.withUTF8 { node in
                add(node: UnsafeRawBufferPointer(node), key: record.key, run: record.run, replacing: replacing) {
                    $0.indexedRecord(record, inputs: inputs)
                }
            }
        }

        /// Adds an entry, its data written by `write`; a node already in keeps its entry unless `replacing`.
        /// `false` when the data would not fit the format's 4-byte offsets.
        private mutating func add(
            node: UnsafeRawBufferPointer, key: NodeKey, run: String, replacing: Bool,
            data write: (inout ByteWriter) -> Void
        ) -> Bool {
            let hash = UInt32(truncatingIfNeeded: JournalIndex.hash(node))
            var slot = Int(hash) & (slots.count - 1)
            var found: Int?
            while slots[slot] != 0 {
                let candidate = Int(slots[slot]) - 1
                if entries[candidate].hash == hash, self.node(of: entries[candidate], { $0.elementsEqual(node) }) {
                    found = candidate
                    break
                }
                slot = (slot + 1) & (slots.count - 1)
            }
            if found != nil, !replacing { return true }
            let start = data.bytes.count
            write(&data)
            guard let offset = UInt32(exactly: start), let length = UInt32(exactly: data.bytes.count - start) else {
                return false
            }
            let entry = Entry(key: key, run: position(of: run), offset: offset, length: length, hash: hash)
            if let found {
                entries[found] = entry
                return true
            }
            entries.append(entry)
            slots[slot] = UInt32(entries.count)
            if entries.count * 2 > slots.count { slots = Self.slots(for: entries.indices, of: entries) }
            return true
        }

        /// The position of a run in ``runs``, added if new. A run's records come one after another, so the last
        /// run's is kept at hand: comparing a string with itself costs less than hashing it.
        private mutating func position(of run: String) -> UInt32 {
            if let last = lastRun, last.run == run { return last.position }
            let position: UInt32
            if let known = runPositions[run] {
                position = known
            } else {
                position = UInt32(runs.count)
                runs.append(run)
                runPositions[run] = position
            }
            lastRun = (run, position)
            return position
        }

        /// Gives `body` the node id of an entry, read from the data in place.
        private func node<T>(of entry: Entry, _ body: (UnsafeRawBufferPointer) -> T) -> T {
            data.bytes.withUnsafeBytes { bytes in
                var reader = IndexReader(bytes, at: Int(entry.offset))
                return body(reader.field() ?? UnsafeRawBufferPointer(start: nil, count: 0))
            }
        }

        /// A table of twice as many slots as `order` has entries or more (a power of two), the entry `order[n]`
        /// placed as number `n`.
        private static func slots(for order: some Collection<Int>, of entries: [Entry]) -> [UInt32] {
            var count = 1024
            while count < 2 * order.count { count *= 2 }
            var slots = [UInt32](repeating: 0, count: count)
            for (number, entry) in order.enumerated() {
                var slot = Int(entries[entry].hash) & (count - 1)
                while slots[slot] != 0 { slot = (slot + 1) & (count - 1) }
                slots[slot] = UInt32(number + 1)
            }
            return slots
        }

        /// The entries in the order of their node ids' bytes: a plan names a task's nodes in much that order (its
        /// items sorted by key), so a run that looks its nodes up one after another reads the index front to back
        /// (``JournalIndex/entry(of:after:)``).
        private func sortedByNode() -> [Int] {
            data.bytes.withUnsafeBytes { bytes in
                // Each id found once rather than at every comparison (a cold run sorts 200,000 of them).
                let nodes = entries.map { entry in
                    var reader = IndexReader(bytes, at: Int(entry.offset))
                    return reader.field() ?? UnsafeRawBufferPointer(start: nil, count: 0)
                }
                return nodes.indices.sorted { Self.precedes(nodes[$0], nodes[$1]) }
            }
        }

        /// Whether bytes sort before others (`memcmp`, then the shorter first).
        private static func precedes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Bool {
            let common = min(left.count, right.count)
            if common > 0, let leftBytes = left.baseAddress, let rightBytes = right.baseAddress {
                let order = memcmp(leftBytes, rightBytes, common)
                if order != 0 { return order < 0 }
            }
            return left.count < right.count
        }

        /// Writes the index file of the journal open at `descriptor` whose first `length` bytes went in, in pieces
        /// (no copy of it whole); `false` when the journal cannot be read or is not that long, or the index would
        /// not fit the format's 4-byte offsets.
        func write(to file: AtomicFile, journal descriptor: Int32, length: Int) throws -> Bool {
            var info = stat()
            guard fstat(descriptor, &info) == 0, Int(info.st_size) == length, length >= Journal.magic.count,
                let window = JournalIndex.windowChecksum(of: descriptor, endingAt: length)
            else { return false }
            let order = sortedByNode()
            let slots = Self.slots(for: order, of: entries)
            let dataLength = order.reduce(0) { $0 + Int(entries[$1].length) }
            var runBytes = ByteWriter()
            for run in runs { runBytes.string(run) }
            let total =
                JournalIndex.headerLength + runBytes.bytes.count + entries.count * JournalIndex.entryLength
                + slots.count * 4 + dataLength + 4
            guard total <= Int(UInt32.max) else { return false }
            var out = ByteWriter()
            out.bytes = JournalIndex.magic
            out.fixed(UInt64(info.st_ino))
            out.fixed(UInt64(length))
            out.fixed(window)
            out.fixed(UInt64(recordCount))
            out.fixed(UInt32(entries.count))
            out.fixed(UInt32(slots.count))
            out.fixed(UInt32(runBytes.bytes.count))
            out.fixed(UInt32(dataLength))
            out.bytes += runBytes.bytes
            var pieces = PieceWriter(file: file)
            try pieces.write(&out)
            var offset = 0
            for entry in order.lazy.map({ entries[$0] }) {
                var key = entry.key
                withUnsafeBytes(of: &key) { out.bytes.append(contentsOf: $0) }
                out.fixed(entry.run)
                out.fixed(UInt32(offset))
                offset += Int(entry.length)
                if out.bytes.count >= PieceWriter.pieceBytes { try pieces.write(&out) }
            }
            for slot in slots { out.fixed(slot) }
            try pieces.write(&out)
            for entry in order.lazy.map({ entries[$0] }) {
                out.bytes += data.bytes[Int(entry.offset)..<(Int(entry.offset) + Int(entry.length))]
                if out.bytes.count >= PieceWriter.pieceBytes { try pieces.write(&out) }
            }
            try pieces.write(&out)
            out.fixed(pieces.checksum)
            try pieces.write(&out)
            return true
        }
    }

    /// Writes a file in pieces, keeping the checksum of what it wrote.
    private struct PieceWriter {
        static let pieceBytes = 1 << 20
        let file: AtomicFile
        private(set) var checksum: UInt32 = 0

        init(file: AtomicFile) {
            self.file = file
        }

        /// Writes `bytes` and empties them.
        mutating func write(_ bytes: inout ByteWriter) throws {
            try bytes.bytes.withUnsafeBytes { bytes in
                checksum = CRC32C.checksum(bytes, continuing: checksum)
                try file.write(bytes)
            }
            bytes.bytes.removeAll(keepingCapacity: true)
        }
    }
}

extension ByteWriter {
    /// A fixed-width integer, little-endian.
    mutating func fixed<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}
