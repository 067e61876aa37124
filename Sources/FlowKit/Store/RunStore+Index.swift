#if canImport(Glibc)
    import Glibc
#endif

extension RunStore {
    /// How many bytes of records past its index a journal may have before a run that ends rewrites the index:
    /// reading them costs the next run a few milliseconds, rewriting the index costs every record's bytes.
    static let indexSlack = 1 << 20

    /// Writes the journal's index anew (``JournalIndex``) when the journal has none that is current, or the
    /// records past it have grown past ``indexSlack`` and a sixteenth of what it covers; called with the lock
    /// held and the journal written whole and closed. The index is made from what the run appended as it
    /// appended it (``JournalWriter/appended()``) and, where no record of this run replaced them, the records the
    /// store opened with: the journal is not read back. The index only saves reading: when it cannot be written,
    /// the next run reads the journal instead, so nothing is reported.
    func updateIndex() {
        guard let appended = writer?.appended(), appended.length > Journal.magic.count else { return }
        let length = appended.length
        let appendedCount = appended.recordCount
        let covered = latest.index?.coveredLength ?? 0
        if latest.index != nil, length - covered <= max(Self.indexSlack, covered / 16) { return }
        // Consumed, so the builder is its tables' only holder: growing them while `appended` held them too copied
        // every entry and byte of a cold run's index (70 ms at 200,000 records).
        var builder = (consume appended).index
        // Room for the records the store opened with, at once: a table grown by doubling would hold up to twice
        // its bytes, and both while it is copied.
        let pastIndex = journalStart - max(covered, Journal.magic.count)
        builder.reserveCapacity(
            entries: latest.count, dataBytes: (latest.index?.dataLength ?? 0) + max(pastIndex, 0))
        for position in latest.positions {
            if let index = latest.index, position < index.count {
                guard builder.addEarlier(entry: position, of: index) else { return }
            } else {
                guard let record = latest.record(at: position), builder.addEarlier(record) else { return }
            }
        }
        builder.recordCount = recordCount + appendedCount
        guard case .success(let opened) = RegularFile.open(journalPath, owned: true) else { return }
        let descriptor = opened.descriptor
        defer { Glibc.close(descriptor) }
        guard let file = try? AtomicFile(path: JournalIndex.path(ofJournal: journalPath)) else { return }
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
