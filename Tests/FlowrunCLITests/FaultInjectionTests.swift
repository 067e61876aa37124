import FlowKitTesting
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Faults at the command-line level: a photo pipeline (fetch over HTTP → decode → resize → write) against a
/// ``LocalHTTPServer`` that answers some items with faults, run through the built `flowrun`. For every fault:
/// exit 1, the failing node named with its cause in the summary and in `--report`, the other items complete,
/// dependents skipped, nothing partial or temporary in the output folder, and every node in the report with a
/// final status.
@Suite struct FaultInjectionTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// One forEach item: what the server does for it and where it is written.
    struct Item {
        var name: String
        var reply: LocalHTTPServer.Reply
        var dir = "out"
        var ext = "jpg"
    }

    /// A PNG of one of the photos, written by flowrun itself (the CLI tests do not link the codecs).
    private func makePNG() async throws -> Data {
        try scratch.write(
            "make-png.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: "\(Fixtures.photoPath("sunset"))" }
              decode: { type: decode, dependsOn: read }
              small: { type: resize, width: 160, dependsOn: decode }
              save: { type: write, path: fixture/sunset.png, dependsOn: small }
            """)
        let made = try await Child.runFlowrun(["make-png.yaml", "--no-progress"], in: scratch.url)
        #expect(made.status == 0, "\(made.stderr)")
        return try Data(contentsOf: URL(fileURLWithPath: scratch.path("fixture/sunset.png")))
    }

    @Test func everyFaultFailsItsOwnItemOnlyAndLeavesNothingPartial() async throws {
        let aitzgorri = try Fixtures.photo("aitzgorri")
        let friends = try Fixtures.photo("friends")
        let seeding = try Fixtures.photo("seeding")
        let sunset = try Fixtures.photo("sunset")
        let wine = try Fixtures.photo("wine")
        let png = try await makePNG()
        // A regular file where a folder should be: writes under it fail with ENOTDIR even for root.
        try scratch.write("blocker", "not a folder\n")
        let items: [Item] = [
            Item(name: "ok-aitzgorri", reply: .ok(aitzgorri)),
            Item(name: "ok-friends", reply: .ok(friends)),
            Item(name: "ok-seeding", reply: .ok(seeding)),
            Item(name: "missing", reply: .status(404, body: Data("gone\n".utf8))),
            Item(name: "reset", reply: .reset(afterSending: Data())),
            Item(name: "short-body", reply: .truncated(declaredLength: wine.count, body: wine.prefix(wine.count / 2))),
            Item(name: "huge", reply: .ok(LocalHTTPServer.patternBytes(300_000))),
            // No Content-Length to refuse up front: the transfer is stopped once past maxBytes.
            Item(name: "huge-chunked", reply: .stream(byteCount: 2_000_000, chunked: true)),
            Item(
                name: "corrupt-jpeg", reply: .ok(Data([0xFF, 0xD8, 0xFF, 0xE0]) + LocalHTTPServer.patternBytes(20_000))),
            Item(name: "cut-jpeg", reply: .ok(wine.prefix(wine.count / 2))),
            Item(name: "cut-png", reply: .ok(png.prefix(png.count / 2))),
            Item(name: "under-a-file", reply: .ok(seeding), dir: "blocker/sub"),
            Item(name: "in-proc", reply: .ok(seeding), dir: "/proc/flowrun-fault-\(UUID().uuidString)"),
            Item(name: "ok-sunset", reply: .ok(sunset), ext: "png"),
        ]
        var routes: [String: LocalHTTPServer.Reply] = [:]
        for item in items { routes["/\(item.name)"] = item.reply }
        routes["/flaky"] = .failing(times: 1, with: .status(500), then: .ok(friends))
        routes["/stall"] = .stall
        let server = try LocalHTTPServer(routes)
        defer { server.stop() }

        let list = items.map {
            "{ name: \($0.name), url: \"\(server.urlString("/" + $0.name))\", dir: \"\($0.dir)\", ext: \($0.ext) }"
        }
        try scratch.write(
            "faults.yaml",
            """
            version: 1
            name: faults
            queues: { io: { maxConcurrent: 4 }, cpu: { maxConcurrent: 2 } }
            tasks:
              fetch:
                type: fetch
                forEach:
                  key: name
                  list:
                    - \(list.joined(separator: "\n        - "))
                url: ${item.url}
                maxBytes: 200000
                queue: io
              decode: { type: decode, dependsOn: fetch, queue: cpu }
              thumb: { type: resize, scale: 0.25, dependsOn: decode, queue: cpu }
              save: { type: write, path: "${item.dir}/${item.name}.${item.ext}", dependsOn: thumb }
              flaky: { type: fetch, url: "\(server.urlString("/flaky"))", retries: 2, queue: io }
              flakyDecode: { type: decode, dependsOn: flaky }
              flakySave: { type: write, path: out/flaky.jpg, dependsOn: flakyDecode }
              stalled: { type: fetch, url: "\(server.urlString("/stall"))", timeout: 300ms, queue: io }
              stalledDecode: { type: decode, dependsOn: stalled }
              stalledSave: { type: write, path: out/stalled.jpg, dependsOn: stalledDecode }
            """)

        let result = try await Child.runFlowrun(
            ["faults.yaml", "--no-progress", "--report", "run.json", "--verbose"], in: scratch.url)
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(!result.terminatedBySignal)

        let report = try ReportView(scratch.path("run.json"))
        func id(_ task: String, _ name: String) -> String { "\(task)[\(name)]" }
        let rows = result.stdout.split(separator: "\n").map(String.init)
        print("FaultInjectionTests: the summary\n" + result.stdout)

        /// The node failed with a cause containing every fragment, in the report and in the summary's row.
        func expectFailed(_ node: String, _ fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(report.status(node) == "failed", "\(node): \(report.cause(node))", sourceLocation: sourceLocation)
            for fragment in fragments {
                #expect(
                    report.cause(node).contains(fragment), "\(node): '\(report.cause(node))' lacks '\(fragment)'",
                    sourceLocation: sourceLocation)
            }
            let row = rows.first { $0.hasPrefix(node + " ") }
            #expect(
                row?.contains(" failed ") == true && fragments.allSatisfy { row?.contains($0) == true },
                "summary row of \(node): \(row ?? "none")", sourceLocation: sourceLocation)
        }
        func expectSkipped(
            _ nodes: [String], because upstream: String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            for node in nodes {
                #expect(report.status(node) == "skipped", "\(node)", sourceLocation: sourceLocation)
                #expect(
                    report.cause(node).contains("upstream \(upstream) failed"), "\(node): \(report.cause(node))",
                    sourceLocation: sourceLocation)
                #expect(report.attempts(node) == 0, "\(node) never ran", sourceLocation: sourceLocation)
            }
        }

        // Fetch faults: the fetch fails, decode/thumb/save are skipped.
        let fetchFaults: [(String, [String])] = [
            ("missing", ["HTTP 404 Not Found", "/missing"]),
            ("reset", ["could not fetch", "/reset"]),
            ("short-body", ["truncated", "/short-body"]),
            ("huge", ["more than maxBytes (200000", "/huge"]),
            ("huge-chunked", ["sent more than maxBytes (200000 bytes); the transfer was stopped", "/huge-chunked"]),
        ]
        for (name, fragments) in fetchFaults {
            expectFailed(id("fetch", name), fragments)
            expectSkipped([id("decode", name), id("thumb", name), id("save", name)], because: id("fetch", name))
        }
        // Decode faults: bytes arrive (200) but are not an image.
        let decodeFaults: [(String, [String])] = [
            ("corrupt-jpeg", ["cannot decode", "/corrupt-jpeg"]),
            ("cut-jpeg", ["cannot decode", "truncated"]),
            ("cut-png", ["cannot decode", "PNG"]),
        ]
        for (name, fragments) in decodeFaults {
            #expect(report.status(id("fetch", name)) == "succeeded")
            expectFailed(id("decode", name), fragments)
            expectSkipped([id("thumb", name), id("save", name)], because: id("decode", name))
        }
        // Write faults: a folder under a regular file, a folder in /proc.
        expectFailed(id("save", "under-a-file"), ["cannot write", "under-a-file.jpg", "Not a directory"])
        expectFailed(id("save", "in-proc"), ["cannot write", "in-proc.jpg"])
        // The retried fetch succeeded on its second attempt; the stalled one timed out.
        #expect(report.status("flaky") == "succeeded")
        #expect(report.attempts("flaky") == 2)
        #expect(server.requests(to: "/flaky").count == 2)
        #expect(report.status("flakySave") == "succeeded")
        expectFailed("stalled", ["timed out after 300ms"])
        expectSkipped(["stalledDecode", "stalledSave"], because: "stalled")

        // The report is complete: every planned node, each with a final status.
        #expect(report.nodes.count == items.count * 4 + 6)
        #expect(report.unfinished.isEmpty, "not final: \(report.unfinished)")
        #expect(report.exitCode == 1)
        #expect(report.interrupted == false)
        #expect(rows.last?.hasPrefix("\(items.count * 4 + 6) nodes: ") == true, "\(rows.last ?? "")")

        // The good items are written, complete, and nothing else is in the folder (no temporaries).
        let out = scratch.path("out")
        let expected = ["flaky.jpg", "ok-aitzgorri.jpg", "ok-friends.jpg", "ok-seeding.jpg", "ok-sunset.png"]
        #expect(OutputFolder.files(in: out) == expected)
        #expect(OutputFolder.strays(in: out).isEmpty)
        #expect(OutputFolder.strays(in: scratch.path("")).isEmpty, "\(OutputFolder.files(in: scratch.path("")))")
        for file in expected { #expect(OutputFolder.looksComplete(out + "/" + file), "\(file)") }
        let decoded = try await OutputFolder.decodeAll(expected.map { out + "/" + $0 }, scratch: scratch.url)
        #expect(decoded.status == 0, "\(decoded.stdout)")
    }

    /// A disk that fills up mid-run: a file-size limit (`ulimit -f`, as `setrlimit(RLIMIT_FSIZE)`) makes the
    /// large write fail with EFBIG. The kernel also sends SIGXFSZ, whose default action would kill flowrun
    /// without a summary or report: flowrun must survive it and report the write as failed.
    @Test func aFileSizeLimitFailsTheLargeWriteWithEFBIGAndFlowrunSurvives() async throws {
        try scratch.write(
            "limit.yaml",
            """
            version: 1
            tasks:
              read:
                type: fetch
                forEach:
                  key: name
                  list:
                    - { name: small-a, src: "\(Fixtures.photoPath("wine"))", scale: 0.1 }
                    - { name: big, src: "\(Fixtures.photoPath("aitzgorri"))", scale: 1.0 }
                    - { name: small-b, src: "\(Fixtures.photoPath("seeding"))", scale: 0.1 }
                url: ${item.src}
              decode: { type: decode, dependsOn: read }
              size: { type: resize, scale: "${item.scale}", dependsOn: decode }
              save: { type: write, path: "out/${item.name}.jpg", quality: 95, dependsOn: size }
              after: { type: noop, dependsOn: save }
            """)
        // 64 blocks of 512 bytes: the report and the thumbnails fit, the full-size photo does not.
        let child = try Child.flowrunInShell(
            prefix: "ulimit -f 64;", ["limit.yaml", "--no-progress", "--report", "run.json", "--verbose"],
            in: scratch.url)
        let result = try #require(await child.wait())
        #expect(!result.terminatedBySignal, "flowrun was killed by signal \(result.status) (SIGXFSZ is 25)")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.status("save[big]") == "failed")
        #expect(report.cause("save[big]").contains("cannot write"))
        #expect(report.cause("save[big]").contains("File too large"), "\(report.cause("save[big]"))")
        #expect(report.status("after[big]") == "skipped")
        #expect(report.status("save[small-a]") == "succeeded" && report.status("save[small-b]") == "succeeded")
        #expect(report.unfinished.isEmpty)
        #expect(
            result.stdout.split(separator: "\n").contains {
                $0.hasPrefix("save[big] ") && $0.contains("File too large")
            })
        let out = scratch.path("out")
        #expect(OutputFolder.files(in: out) == ["small-a.jpg", "small-b.jpg"])
        #expect(OutputFolder.strays(in: out).isEmpty)
        for file in ["small-a.jpg", "small-b.jpg"] { #expect(OutputFolder.looksComplete(out + "/" + file)) }
    }

    /// The report itself does not fit under the file-size limit. It is written on the main thread, which (unlike
    /// Dispatch's workers) does not block SIGXFSZ: flowrun must not die of it (exit 153, no summary, a
    /// `.dat.nosync…` temporary left behind) but say it cannot write the report and exit 1.
    @Test func aReportOverTheFileSizeLimitIsAnErrorNotACrash() async throws {
        try scratch.write(
            "many.yaml",
            """
            version: 1
            tasks:
              step: { type: noop, forEach: [\((0..<40).map(String.init).joined(separator: ", "))] }
            """)
        // 4 blocks of 512 bytes; the report of 40 nodes is about 15 KB.
        let child = try Child.flowrunInShell(
            prefix: "ulimit -f 4;", ["many.yaml", "--no-progress", "--report", "run.json"],
            in: scratch.url)
        let result = try #require(await child.wait())
        #expect(!result.terminatedBySignal && result.status != 128 + SIGXFSZ, "flowrun was killed by SIGXFSZ")
        #expect(result.status == 1, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("40 nodes: 40 succeeded"))
        #expect(result.stderr.contains("error: cannot write 'run.json': File too large"), "\(result.stderr)")
        // Neither a partial report nor the temporary of the atomic write is left.
        #expect(OutputFolder.files(in: scratch.path("")).filter { !$0.hasPrefix(".flowrun/") } == ["many.yaml"])
    }

    /// Whether this sandbox lets us mount a tmpfs (root with CAP_SYS_ADMIN); the test is skipped otherwise.
    static let canMountTmpfs: Bool = {
        guard getuid() == 0 else { return false }
        let probe = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-mount-probe-\(getpid())")
        try? FileManager.default.createDirectory(at: probe, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: probe) }
        guard mount("tmpfs", probe.path, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount2(probe.path, Int32(MNT_DETACH))
        return true
    }()

    /// A real full disk: a 256 KiB tmpfs as the output folder. Writes that do not fit fail with ENOSPC and leave
    /// no temporary behind; the ones before them are complete.
    @Test(.enabled(if: canMountTmpfs, "needs root and permission to mount a tmpfs"))
    func aFullDiskFailsTheWritesThatDoNotFitAndLeavesNoTemporaries() async throws {
        let disk = scratch.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        try #require(mount("tmpfs", disk, "tmpfs", 0, "size=256k") == 0, "mount: \(String(cString: strerror(errno)))")
        defer { umount2(disk, Int32(MNT_DETACH)) }
        // Full-size photos at quality 100 are 0.3–0.6 MB each: the first (at most) fits, the rest cannot.
        let names = Fixtures.photoNames
        let list = names.map { "{ name: \($0), src: \"\(Fixtures.photoPath($0))\" }" }.joined(separator: ", ")
        try scratch.write(
            "full.yaml",
            """
            version: 1
            queues: { disk: { maxConcurrent: 1 } }
            tasks:
              read: { type: fetch, forEach: { list: [\(list)], key: name }, url: "${item.src}" }
              decode: { type: decode, dependsOn: read }
              save: { type: write, path: "disk/${item.name}.jpg", quality: 100, dependsOn: decode, queue: disk }
              thumb: { type: resize, width: 64, dependsOn: decode }
              small: { type: write, path: "thumbs/${item.name}.jpg", dependsOn: thumb }
            """)
        let result = try await Child.runFlowrun(
            ["full.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        let report = try ReportView(scratch.path("run.json"))
        #expect(report.unfinished.isEmpty)
        let failed = names.filter { report.status("save[\($0)]") == "failed" }
        #expect(failed.count >= names.count - 1, "\(report.nodes.map { "\($0["id"]!) \($0["status"]!)" })")
        for name in failed {
            #expect(
                report.cause("save[\(name)]").contains("No space left on device"), "\(report.cause("save[\(name)]"))")
        }
        // The other branch is unaffected.
        #expect(names.allSatisfy { report.status("small[\($0)]") == "succeeded" })
        // What is on the full disk is complete, and no temporary is left.
        let files = OutputFolder.files(in: disk)
        #expect(OutputFolder.strays(in: disk).isEmpty, "\(files)")
        #expect(files.count == names.count - failed.count)
        for file in files { #expect(OutputFolder.looksComplete(disk + "/" + file)) }
    }
}
