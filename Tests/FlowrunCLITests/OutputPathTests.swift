import Foundation
import Testing

/// Where flowrun writes: any path a workflow or a command line names, and never over a file that is not a regular
/// file — a FIFO, a device, a link — which it would otherwise replace.
@Suite struct OutputPathTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// `/dev/null`'s device number, major 1 minor 3, in glibc's encoding (`makedev` is a macro Swift cannot see).
    static let devNull = dev_t(1 << 8 | 3)

    /// Every file under `folder`, relative to it, with its kind: "file: TEXT", "fifo", "link → TARGET", "device".
    func tree(_ folder: String) throws -> [String: String] {
        var found: [String: String] = [:]
        let root = URL(fileURLWithPath: folder)
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder) {
            let full = root.appendingPathComponent(path).path
            var info = stat()
            guard lstat(full, &info) == 0 else { continue }
            switch info.st_mode & S_IFMT {
            case S_IFDIR: continue
            case S_IFREG: found[path] = "file: " + (try String(contentsOfFile: full, encoding: .utf8))
            case S_IFIFO: found[path] = "fifo"
            case S_IFCHR: found[path] = "device"
            case S_IFLNK: found[path] = "link → " + (try FileManager.default.destinationOfSymbolicLink(atPath: full))
            default: found[path] = "other"
            }
        }
        return found
    }

    /// A workflow that copies `in.txt` to each path.
    func copying(to paths: [String]) throws {
        let saves = paths.enumerated().map { index, path in
            "  save\(index): { type: write, path: \"\(path)\", dependsOn: fetch }"
        }
        try scratch.write("in.txt", "bytes")
        try scratch.write(
            "copy.yaml",
            (["version: 1", "tasks:", "  fetch: { type: fetch, url: in.txt }"] + saves).joined(separator: "\n"))
    }

    /// `NSString`'s path methods trap on one-character names in this Foundation: `write` to `o/x.txt` crashed.
    @Test func writesThroughOneCharacterFoldersSpacesDotDotAndUnicode() throws {
        try copying(to: [
            "out/o/x.txt", "out/x/y/z.txt", "out/a/b/c/d/e.txt", "out/q.txt", "out/with space/a b.txt",
            "out/d/e/../f.txt", "out/写真/été 📷.txt",
        ])
        let result = try Flowrun.run(["copy.yaml", "--no-progress", "--no-cache"], in: scratch.url)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(
            try tree(scratch.path("out")) == [
                "o/x.txt": "file: bytes", "x/y/z.txt": "file: bytes", "a/b/c/d/e.txt": "file: bytes",
                "q.txt": "file: bytes", "with space/a b.txt": "file: bytes", "d/f.txt": "file: bytes",
                "写真/été 📷.txt": "file: bytes",
            ])
    }

    @Test func aWriteToAFIFOOrALinkIsRefusedAndLeavesThemAsTheyWere() throws {
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        #expect(mkfifo(scratch.path("out/pipe.txt"), 0o644) == 0)
        try scratch.write("elsewhere.txt", "kept")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("out/link.txt"), withDestinationPath: scratch.path("elsewhere.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("out/stdout.txt"), withDestinationPath: "/proc/self/fd/1")
        try copying(to: ["out/pipe.txt", "out/link.txt", "out/stdout.txt"])
        let result = try Flowrun.run(["copy.yaml", "--no-progress", "--no-cache"], in: scratch.url)
        #expect(result.status == 1)
        let refusal = "and flowrun replaces only regular files"
        #expect(
            result.stdout.split(separator: "\n").filter { $0.contains(": error: ") } == [
                "copy.yaml:4:3: error: save0 failed: cannot write 'out/pipe.txt': it is a FIFO, \(refusal)",
                "copy.yaml:5:3: error: save1 failed: cannot write 'out/link.txt': it is a symbolic link, \(refusal)",
                "copy.yaml:6:3: error: save2 failed: cannot write 'out/stdout.txt': it is a symbolic link, \(refusal)",
            ], "\(result.stdout)")
        #expect(
            try tree(scratch.path("out")) == [
                "pipe.txt": "fifo", "link.txt": "link → " + scratch.path("elsewhere.txt"),
                "stdout.txt": "link → /proc/self/fd/1",
            ])
        #expect(try String(contentsOfFile: scratch.path("elsewhere.txt"), encoding: .utf8) == "kept")
    }

    @Test(.enabled(if: getuid() == 0, "making a character device needs root"))
    func aWriteToACharacterDeviceIsRefusedAndLeavesItADevice() throws {
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        #expect(mknod(scratch.path("out/null.txt"), S_IFCHR | 0o666, Self.devNull) == 0)
        try copying(to: ["out/null.txt"])
        let result = try Flowrun.run(["copy.yaml", "--no-progress", "--no-cache"], in: scratch.url)
        #expect(result.status == 1)
        #expect(
            result.stdout.split(separator: "\n").filter { $0.contains(": error: ") } == [
                "copy.yaml:4:3: error: save0 failed: cannot write 'out/null.txt': it is a character device, "
                    + "and flowrun replaces only regular files"
            ], "\(result.stdout)")
        #expect(try tree(scratch.path("out")) == ["null.txt": "device"])
    }

    /// `--report /dev/null` replaced the system's `/dev/null` with a regular file (as root). A device made here
    /// stands for it; the trace goes into a FIFO whose reader is open before the run (the pipe keeps the bytes).
    @Test(.enabled(if: getuid() == 0, "making a character device needs root"))
    func reportsAndTracesGoIntoDevicesAndFIFOsWithoutReplacingThem() throws {
        try copying(to: ["out/a.txt"])
        #expect(mknod(scratch.path("null"), S_IFCHR | 0o666, Self.devNull) == 0)
        try FileManager.default.createSymbolicLink(atPath: scratch.path("null-link"), withDestinationPath: "null")
        let fifo = scratch.path("trace.fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let result = try Flowrun.run(
            ["copy.yaml", "--no-progress", "--no-cache", "--report", "null", "--html", "null-link", "--trace", fifo],
            in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        var trace = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while case let count = read(reader, &chunk, chunk.count), count > 0 {
            trace.append(contentsOf: chunk[..<count])
        }
        #expect((try JSONSerialization.jsonObject(with: trace) as? [String: Any])?["traceEvents"] != nil)
        var info = stat()
        #expect(lstat(scratch.path("null"), &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
        #expect(lstat(scratch.path("null-link"), &info) == 0 && info.st_mode & S_IFMT == S_IFLNK)
        #expect(lstat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.path(".")).filter { $0.hasPrefix(".flowrun-") }
                == [])
    }

    /// `--trace /dev/stdout` with the output going to a file replaced the link with a regular file (round two's
    /// regression; as root, `/dev/stdout` itself). A link is written into, as `tee` writes, and stays a link: one to
    /// this process's own stdout goes on where the output is, one to another file writes that file, a dangling one
    /// makes the file it names.
    @Test func reportsAndTracesGoThroughLinksAsTeeWrites() async throws {
        try copying(to: ["out/a.txt"])
        try scratch.write("reports/old.json", "old")
        let links = [
            "report-link": "reports/old.json", "html-link": "reports/new.html", "stdout-link": "/proc/self/fd/1",
        ]
        for (link, target) in links {
            try FileManager.default.createSymbolicLink(atPath: scratch.path(link), withDestinationPath: target)
        }
        let child = try Child.flowrunInShell(
            prefix: "",
            [
                "copy.yaml", "--no-progress", "--no-cache", "--report", "report-link", "--html", "html-link",
                "--trace", "stdout-link",
            ], in: scratch.url, redirect: "> run.log")
        let result = try #require(await child.wait(), "flowrun did not finish")
        #expect(result.status == 0, "\(result.stderr)")
        for (link, target) in links {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.path(link)) == target)
        }
        let report = try JSONSerialization.jsonObject(
            with: Data(contentsOf: scratch.url.appending(path: "reports/old.json")))
        #expect((report as? [String: Any])?["nodes"] != nil, "the report went into the file the link names")
        let page = try String(contentsOfFile: scratch.path("reports/new.html"), encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>"), "\(page.prefix(80))")
        // The trace went on where the summary was written, overwriting none of it.
        let log = try String(contentsOfFile: scratch.path("run.log"), encoding: .utf8)
        let trace = try #require(log.range(of: "{\"displayTimeUnit\""), "no trace in the output: \(log)")
        let summary = String(log[..<trace.lowerBound])
        #expect(
            summary.hasPrefix("copy.yaml: 2 nodes: 2 succeeded") || summary.contains("2 nodes: 2 succeeded"),
            "\(summary)")
        let parsed = try JSONSerialization.jsonObject(with: Data(log[trace.lowerBound...].utf8))
        #expect((parsed as? [String: Any])?["traceEvents"] != nil)
    }

    @Test func aReportToAFIFOWithoutAReaderIsAnErrorNotAHang() throws {
        try copying(to: ["out/a.txt"])
        #expect(mkfifo(scratch.path("report.fifo"), 0o644) == 0)
        let result = try Flowrun.run(
            ["copy.yaml", "--no-progress", "--no-cache", "--report", "report.fifo"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.stderr == "error: cannot write 'report.fifo': no process reads the FIFO\n")
    }
}
