#if canImport(Glibc)
    import Glibc
#endif

extension RunStore {
    /// How many bytes of records past its index a journal may have before a run that ends rewrites the index:
    /// reading them costs the next run a few milliseconds, rewriting the index costs every record's bytes.
    static let indexSlack = 1 << 20

    /// Writes the journal's index anew (``JournalIndex``) when the journal has none that is current, or the
    /// records past it have grown past ``indexSlack`` and a sixteenth of what it covers; called with the lock
    /// held and the journal written whole. The index only saves reading: when it cannot be written, the next run
    /// reads the journal instead, so nothing is reported.
    func updateIndex() {
        let path = journalPath
        guard let length = FileStamp(path: path).map({ Int($0.size) }), length > Journal.magic.count else { return }
        let covered = latest.index?.coveredLength ?? 0
        if latest.index != nil, length - covered <= max(Self.indexSlack, covered / 16) { return }
        // Room for what the index had and, past it, a record for each 80 bytes of the journal (a record's key alone
        // takes 65 there) and as many bytes of data as the journal took (a record's data is smaller).
        let pastRead = length - max(journalStart, Journal.magic.count)
        var builder = JournalIndex.Builder(
            entries: latest.count + pastRead / 80,
            dataBytes: (latest.index?.dataLength ?? 0) + length - max(covered, Journal.magic.count))
        for position in latest.positions {
            if let index = latest.index, position < index.count {
                guard builder.add(entry: position, of: index) else { return }
            } else {
                guard let record = latest.record(at: position), builder.add(record) else { return }
            }
        }
        var added = 0
        var intact = true
        let contents = Journal.read(atPath: path, from: journalStart) { record in
            intact = intact && builder.add(record)
            added += 1
        }
        builder.recordCount = recordCount + added
        guard intact, contents.damage == nil, contents.intactLength == length,
            case .success(let descriptor) = RegularFile.open(path, owned: true)
        else { return }
        defer { Glibc.close(descriptor) }
        guard let file = try? AtomicFile(path: JournalIndex.path(ofJournal: path)) else { return }
        do {
            if try builder.write(to: file, journal: descriptor, length: length) { try file.commit() }
        } catch {}  // The next run reads the journal instead.
    }

    /// Gives back the pages of the journal's index that the decisions read (``JournalIndex/releasePages()``): the
    /// run that follows asks it for few records, and those are read again from the page cache.
    func releaseIndexPages() {
        latest.index?.releasePages()
    }
}
