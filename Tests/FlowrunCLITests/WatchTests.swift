import Foundation
import Testing

/// `flowrun --watch` through the binary: photos dropped into a watched tree run their chains alone, an edit that
/// breaks the workflow is reported and watched past, and Ctrl-C ends the watch with the last run's summary.
@Suite struct WatchTests {
    let scratch: Scratch

    static let workflow = """
        version: 1
        name: mirror
        tasks:
          read: { type: fetch, forEach: { glob: "photos/**/*.{jpg,JPG}" }, url: "${item}" }
          save: { type: write, path: "out/${item.rel}", dependsOn: read }

        """

    init() throws {
        scratch = try Scratch()
        try scratch.write("flow.yaml", Self.workflow)
        try scratch.write("photos/a.jpg", "a")
        try scratch.write("photos/2024/b.JPG", "b")
    }

    /// The run lines, without their times: "[12:00:01] run 2 …" becomes "run 2 …".
    private func runLines(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").filter { $0.hasPrefix("[") }.map { line in
            String(line.drop { $0 != "]" }.dropFirst(2))
        }
    }

    @Test func newPhotosRunTheirChainsAloneAndABrokenEditIsWatchedPast() async throws {
        let watch = try Child.flowrun(["flow.yaml", "--watch", "--watch-runs", "4", "--no-progress"], in: scratch.url)
        #expect(await watch.waitForStdout(containing: "run 1:"))
        try scratch.write("photos/2024/summer/c.jpg", "c")
        #expect(await watch.waitForStdout(containing: "run 2 "))
        try scratch.write("flow.yaml", "tasks: [")
        #expect(await watch.waitForStdout(containing: "run 3 "))
        try scratch.write("notes.txt", "not watched")
        try scratch.write("photos/.hidden.jpg", "hidden")
        try scratch.write("flow.yaml", Self.workflow)
        let result = try #require(await watch.wait())
        #expect(result.status == 0)
        #expect(
            runLines(result.stdout) == [
                "run 1: 4 nodes: 4 succeeded in \(durationIn(result.stdout, run: 1))",
                "run 2 after 1 change (photos/2024/summer/c.jpg): 6 nodes: 2 succeeded, 4 cached in "
                    + durationIn(result.stdout, run: 2),
                "run 3 after 1 change (flow.yaml): 1 error; nothing was run, watching for the next change",
                "run 4 after 1 change (flow.yaml): 6 nodes: 6 cached in \(durationIn(result.stdout, run: 4))",
            ])
        #expect(try String(contentsOfFile: scratch.path("out/2024/summer/c.jpg"), encoding: .utf8) == "c")
        #expect(
            result.stderr
                == "flow.yaml:2:1: error: invalid YAML: did not find expected node content while parsing a flow node\n")
    }

    @Test func ctrlCEndsTheWatchWithTheLastRunsSummary() async throws {
        let watch = try Child.flowrun(["flow.yaml", "--watch", "--no-progress"], in: scratch.url)
        #expect(await watch.waitForStdout(containing: "run 1:"))
        watch.signal(SIGINT)
        let result = try #require(await watch.wait())
        #expect(result.status == 130)
        #expect(result.stdout.hasSuffix("4 nodes: 4 succeeded in \(durationIn(result.stdout, run: 1))\n"))
        #expect(result.stderr == "\ninterrupted: the watch ends\n", "nothing was running to cancel")
    }

    /// The producer of a list made at run time runs while a cycle's session prepares, before its runner exists:
    /// Ctrl-C reaches it there too, instead of waiting for it to end on its own. Its item ran while it ran (the
    /// producer waits for the item's file, then five seconds for its node to end) and keeps its result.
    @Test(.timeLimit(.minutes(10))) func ctrlCWhileAProducerRunsInAWatchStopsIt() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [sh, -c, "echo a; \#(StreamingProducer.waitFor("a.done")); sleep 5; echo $$ > producer.pid; exec sleep 300"] }
              each: { type: command, forEach: { from: list }, argv: [touch, "${item}.done"] }
            """#)
        let watch = try Child.flowrun(["flow.yaml", "--watch", "--no-progress"], in: scratch.url)
        let producer = try await ProgramPID(file: scratch.path("producer.pid"))
        watch.signal(SIGINT)
        let result = try #require(await watch.wait(timeout: .seconds(600)), "the watch did not end after Ctrl-C")
        #expect(result.status == 130, "\(result.stdout)\(result.stderr)")
        #expect(result.stderr == "\ninterrupted: cancelling (press Ctrl-C again to exit now)\n")
        let lines = runLines(result.stdout)
        #expect(lines.count == 1 && lines[0].hasPrefix("run 1: 2 nodes: 1 succeeded, 1 cancelled in "), "\(lines)")
        #expect(lines.first?.hasSuffix(" (interrupted)") == true, "\(lines)")
        #expect(await producer.ended(), "the producer's program is still running")
    }

    /// A link in the tree to a folder outside it (which the glob leaves out, with a warning) was followed — a
    /// link to `/` made some 25,000 watches — and so were a folder the glob excludes and the store's. The watch
    /// watches the workflow's folder and the folders the glob reads, no others.
    @Test func theWatchWatchesExactlyTheFoldersTheGlobReads() async throws {
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/**/*.{jpg,JPG}", exclude: photos/skip }, url: "${item}" }
              save: { type: write, path: "out/${item.rel}", dependsOn: read }
            """)
        try scratch.write("elsewhere/one/two/x.jpg", "x")
        try scratch.write("photos/skip/deep/y.jpg", "y")
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path("photos/outside"), withDestinationPath: scratch.path("elsewhere"))
        let store = ["--state-dir", "photos/state"]
        #expect(try await Child.runFlowrun(["flow.yaml", "--no-progress"] + store, in: scratch.url).status == 0)
        let watch = try Child.flowrun(["flow.yaml", "--watch", "--no-progress"] + store, in: scratch.url)
        #expect(await watch.waitForStdout(containing: "run 1:"))
        let watched = try Self.watchedInodes(of: watch.pid)
        watch.signal(SIGINT)
        _ = try #require(await watch.wait())
        let folders = [".", "photos", "photos/2024"]
        #expect(watched == Set(try folders.map { try Self.inode(scratch.path($0)) }), "watched \(watched.count)")
    }

    /// More folders under a glob than a watch watches: a clear error, not thousands of watches.
    @Test func aGlobOverTooManyFoldersIsRefusedSayingSo() async throws {
        for index in 0...10_000 {
            try FileManager.default.createDirectory(
                atPath: scratch.path("photos/many/\(index)"), withIntermediateDirectories: true)
        }
        let result = try await Child.runFlowrun(["flow.yaml", "--watch", "--no-progress"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "error: cannot watch the globs' folders: there are more than 10000 under photos; "
                + "start the glob in a narrower folder, or exclude folders it need not read\n")
    }

    private static func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        try #require(stat(path, &info) == 0)
        return UInt64(info.st_ino)
    }

    /// The inodes of the folders a process watches with inotify, as `/proc/PID/fdinfo` lists them (in hex).
    private static func watchedInodes(of pid: Int32) throws -> Set<UInt64> {
        var inodes = Set<UInt64>()
        for descriptor in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") {
            let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(descriptor)")
            guard target == "anon_inode:inotify" else { continue }
            let info = try String(contentsOfFile: "/proc/\(pid)/fdinfo/\(descriptor)", encoding: .utf8)
            for line in info.split(separator: "\n") where line.hasPrefix("inotify wd:") {
                let field = line.split(separator: " ").first { $0.hasPrefix("ino:") }
                if let value = field.flatMap({ UInt64($0.dropFirst(4), radix: 16) }) { inodes.insert(value) }
            }
        }
        return inodes
    }

    @Test func watchRunsNeedsWatch() async throws {
        let result = try await Child.runFlowrun(["flow.yaml", "--watch-runs", "2"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--watch-runs needs --watch"))
    }

    @Test func watchSettleNeedsWatch() async throws {
        let result = try await Child.runFlowrun(["flow.yaml", "--watch-settle", "1s"], in: scratch.url)
        #expect(result.status == 2)
        #expect(result.stderr.contains("--watch-settle needs --watch"))
    }

    @Test(arguments: ["0ms", "9ms", "5.1s", "100", "-1s", "fast", "1e3ms"])
    func aWatchSettleOutOfRangeIsRefused(_ value: String) async throws {
        let result = try await Child.runFlowrun(["flow.yaml", "--watch", "--watch-settle=\(value)"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "Error: The value '\(value)' is invalid for '--watch-settle <DURATION>': expected a duration from "
                    + "10ms to 5s, such as 100ms\n"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "it ran")
    }

    /// Two photos a second apart are one run with a settle of 3 s; the default 200 ms would make them two.
    @Test func aLongerSettleMakesFilesASecondApartOneRun() async throws {
        let watch = try Child.flowrun(
            ["flow.yaml", "--watch", "--watch-runs", "2", "--watch-settle", "3s", "--no-progress"], in: scratch.url)
        #expect(await watch.waitForStdout(containing: "run 1:"))
        // A program of its own writes them, so a busy test pool cannot stretch the second apart.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", "echo c > photos/c.jpg; sleep 1; echo d > photos/d.jpg"]
        writer.currentDirectoryURL = scratch.url
        try writer.run()
        let result = try #require(await watch.wait())
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            runLines(result.stdout).last
                == "run 2 after 2 changes (photos/c.jpg, photos/d.jpg): 8 nodes: 4 succeeded, 4 cached in "
                + durationIn(result.stdout, run: 2))
    }

    /// The duration a run line ends with ("12ms", "1.20s"), which the goldens cannot know.
    private func durationIn(_ stdout: String, run: Int) -> String {
        let line = stdout.split(separator: "\n").first { $0.contains("] run \(run)") } ?? ""
        return line.split(separator: " ").last.map(String.init) ?? ""
    }
}
