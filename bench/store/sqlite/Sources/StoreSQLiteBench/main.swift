import Foundation
import GRDB

#if canImport(Glibc)
    import Glibc
#endif

// The store's work at N items of `fetch → write` (2N records), done with SQLite through GRDB.swift the ways the
// store would: one row per node (its latest result) keyed by node id, with an index by key (results found by key).
//   cold        every node's record inserted as it finishes: each `write` committed at once (its proof must reach
//               the kernel before the next node), the others in batches of 1,000 — the journal's guarantees
//   cold-batch  every record in batches of 1,000 (weaker than the journal: a kill -9 loses up to 1,000 writes)
//   rerun-scan  an unchanged rerun's read: every node's key and written file, into a table by node id
//   rerun-get   the same by one query per node id (a prepared statement), as the decisions ask
//   one-edit    two nodes' records replaced
//   records     making the records alone (part of both cold figures)
// Each figure is the operation's wall time; the database is in WAL mode with synchronous=OFF (like the journal:
// to the kernel, no fsync). Peak RSS and the database's size are printed last.
//
//   swift run -c release StoreSQLiteBench [N] [folder]

let items = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 100_000 : 100_000
let folder =
    CommandLine.arguments.count > 2
    ? CommandLine.arguments[2] : NSTemporaryDirectory() + "store-sqlite-\(getpid())"
try? FileManager.default.removeItem(atPath: folder)
try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: folder) }

/// One finished node, the shape of a journal record: run, node id, key (32 bytes), what went into the key
/// (encoded, about 300 bytes, as the journal's are), and for a `write` the file, its stamp and SHA-256.
struct Record {
    var run: String
    var node: String
    var key: [UInt8]
    var inputs: [UInt8]
    var path: String?
    var size: Int64
    var modified: Int64
    var inode: Int64
    var sha256: [UInt8]?
}

func digest(_ seed: Int, _ salt: UInt8) -> [UInt8] {
    var state = UInt64(truncatingIfNeeded: seed) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(salt)
    return (0..<32).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}

func record(_ item: Int, writes: Bool, run: String) -> Record {
    let name = String(format: "in/f%06d.txt", item)
    let source = "file /data/work/\(name) size 12 mtime 1764146700000000000 inode \(item)"
    let inputs = Array("fetch 1 optimize=true url=\(name) source=\(source)".utf8) + [UInt8](repeating: 0x20, count: 160)
    return Record(
        run: run, node: (writes ? "save[" : "read[") + name + "]", key: digest(item, writes ? 1 : 0), inputs: inputs,
        path: writes ? String(format: "/data/work/out/f%06d.txt", item) : nil, size: 12,
        modified: 1_764_146_700_000_000_000, inode: Int64(item), sha256: writes ? digest(item, 2) : nil)
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

func openDatabase(_ path: String) throws -> DatabaseQueue {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF")
    }
    let queue = try DatabaseQueue(path: path, configuration: configuration)
    try queue.write { db in
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS result (
                    node TEXT PRIMARY KEY, key BLOB NOT NULL, run TEXT NOT NULL, inputs BLOB NOT NULL,
                    path TEXT, size INTEGER, modified INTEGER, inode INTEGER, sha256 BLOB) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS result_key ON result(key);
                """)
    }
    return queue
}

let upsert = """
    INSERT OR REPLACE INTO result (node, key, run, inputs, path, size, modified, inode, sha256)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
    """

func insert(_ record: Record, with statement: Statement) throws {
    try statement.execute(arguments: [
        record.node, Data(record.key), record.run, Data(record.inputs), record.path, record.size, record.modified,
        record.inode, record.sha256.map { Data($0) },
    ])
}

/// Inserts every item's two records in plan order, committing each `write` at once when `durableWrites`.
func coldRun(_ queue: DatabaseQueue, durableWrites: Bool) throws {
    let run = "2026-11-26T09:00:00Z"
    try queue.writeWithoutTransaction { db in
        let statement = try db.makeStatement(sql: upsert)
        var pending = 0
        try db.execute(sql: "BEGIN")
        for item in 0..<items {
            for writes in [false, true] {
                try insert(record(item, writes: writes, run: run), with: statement)
                pending += 1
                if (writes && durableWrites) || pending == 1000 {
                    try db.execute(sql: "COMMIT; BEGIN")
                    pending = 0
                }
            }
        }
        try db.execute(sql: "COMMIT")
    }
}

struct Kept {
    var key: Data
    var path: String?
    var size: Int64
    var modified: Int64
    var inode: Int64
    var sha256: Data?
}

func kept(_ row: Row) -> Kept {
    Kept(key: row[1], path: row[2], size: row[3] ?? 0, modified: row[4] ?? 0, inode: row[5] ?? 0, sha256: row[6])
}

let columns = "node, key, path, size, modified, inode, sha256"

func report(_ label: String, _ time: Double, _ detail: String = "") {
    print(label.padding(toLength: 11, withPad: " ", startingAt: 0) + String(format: " %7.3f s  ", time) + detail)
}

var made = 0
report(
    "records",
    seconds {
        for item in 0..<items {
            for writes in [false, true] { made += record(item, writes: writes, run: "r").inputs.count }
        }
    })

for (label, durable) in [("cold", true), ("cold-batch", false)] {
    let path = folder + "/\(label).sqlite"
    let queue = try openDatabase(path)
    let time = try seconds { try coldRun(queue, durableWrites: durable) }
    report(label, time, "(\(2 * items) records)")
}

let queue = try openDatabase(folder + "/cold.sqlite")
var latest: [String: Kept] = [:]
let scan = try seconds {
    try queue.read { db in
        let rows = try Row.fetchCursor(db, sql: "SELECT \(columns) FROM result")
        while let row = try rows.next() { latest[row[0]] = kept(row) }
    }
}
report("rerun-scan", scan, "(\(latest.count) nodes)")

var found = 0
let get = try seconds {
    try queue.read { db in
        let statement = try db.makeStatement(sql: "SELECT \(columns) FROM result WHERE node = ?")
        for item in 0..<items {
            for writes in [false, true] {
                let node = (writes ? "save[" : "read[") + String(format: "in/f%06d.txt", item) + "]"
                if let row = try Row.fetchOne(statement, arguments: [node]) {
                    _ = kept(row)
                    found += 1
                }
            }
        }
    }
}
report("rerun-get", get, "(\(found) nodes)")

let edit = try seconds {
    try queue.write { db in
        let statement = try db.makeStatement(sql: upsert)
        for writes in [false, true] {
            try insert(record(5, writes: writes, run: "2026-11-26T09:05:00Z"), with: statement)
        }
    }
}
report("one-edit", edit)

var usage = rusage()
getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
let bytes = try FileManager.default.contentsOfDirectory(atPath: folder).reduce(Int64(0)) { total, name in
    let size = (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? Int64) ?? 0
    return total + (name.hasPrefix("cold.") ? size : 0)
}
print(String(format: "peak RSS    %7.0f MB", Double(usage.ru_maxrss) / 1024))
print(String(format: "database    %7.1f MB (with its WAL)", Double(bytes) / 1_048_576))
