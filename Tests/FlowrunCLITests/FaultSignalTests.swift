import FlowKitTesting
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C and SIGTERM at random moments of a long photo run, and the second Ctrl-C. Serialized: each case
/// keeps both cores busy, and the timing bounds (exit within 5 s) are about flowrun, not about a machine
/// shared with a dozen other flowruns.
extension FaultHeavyTests {
    @Suite(.serialized) struct FaultSignalTests {
        static let photoCount = 60

        /// The key (and output name) of item `index`: `p07-sunset`.
        static func key(_ index: Int) -> String {
            String(format: "p%02d", index) + "-" + Fixtures.photoNames[index % Fixtures.photoNames.count]
        }

        /// 60 photos: fetch → decode → resize → write, then a short sleep per item, on two queues. The photos are
        /// `sources/NAME.jpg` (see ``makeSources(in:)``).
        static func longWorkflow(sources: String) -> String {
            let items = (0..<photoCount).map { index -> String in
                let name = Fixtures.photoNames[index % Fixtures.photoNames.count]
                return "{ name: \(key(index)), src: \"\(sources)/\(name).jpg\" }"
            }
            return """
                version: 1
                name: long
                queues: { cpu: { maxConcurrent: 2 } }
                tasks:
                  read: { type: fetch, forEach: { list: [\(items.joined(separator: ", "))], key: name }, url: "${item.src}" }
                  decode: { type: decode, dependsOn: read, queue: cpu }
                  thumb: { type: resize, scale: 0.3, dependsOn: decode, queue: cpu }
                  save: { type: write, path: "out/${item.name}.jpg", quality: 80, dependsOn: thumb }
                  rest: { type: sleep, duration: 20ms, dependsOn: save }
                """
        }

        /// The bundled photos at 200 pixels wide, so that a debug-built flowrun goes through all 60 in about two
        /// seconds and a random moment can fall anywhere in the run, the last writes included.
        static func makeSources(in scratch: Scratch) async throws -> String {
            let list = Fixtures.photoNames.map { "{ name: \($0), src: \"\(Fixtures.photoPath($0))\" }" }
            try scratch.write(
                "sources.yaml",
                """
                version: 1
                tasks:
                  read: { type: fetch, forEach: { list: [\(list.joined(separator: ", "))], key: name }, url: "${item.src}" }
                  decode: { type: decode, dependsOn: read }
                  small: { type: resize, width: 200, dependsOn: decode }
                  save: { type: write, path: "sources/${item.name}.jpg", dependsOn: small }
                """)
            let made = try await Child.runFlowrun(["sources.yaml", "--no-progress"], in: scratch.url)
            #expect(made.status == 0, "\(made.stderr)")
            return scratch.path("sources")
        }

        @Test func aSignalAtARandomMomentExits130AndLeavesOnlyCompleteFiles() async throws {
            let seed = SeededGenerator.seed()
            print("FaultSignalTests: seed \(seed) (replay with FLOWRUN_FAULT_SEED=\(seed))")
            var random = SeededGenerator(seed: seed)
            let budget = ContinuousClock.now + .seconds(15)
            let shared = try Scratch()
            let sources = try await Self.makeSources(in: shared)
            // How long an uninterrupted run takes here, so the random moments cover all of it.
            let calibration = try Scratch()
            try calibration.write("long.yaml", Self.longWorkflow(sources: sources))
            let started = ContinuousClock.now
            let whole = try await Child.runFlowrun(["long.yaml", "--no-progress"], in: calibration.url)
            let runTime = ContinuousClock.now - started
            #expect(whole.status == 0, "\(whole.stderr)")
            #expect(OutputFolder.files(in: calibration.path("out")).count == Self.photoCount)
            print("FaultSignalTests: an uninterrupted run takes \(runTime)")
            let longest = max(Int(runTime / .milliseconds(1)), 200)

            var iteration = 0
            var interruptions = 0
            while iteration < 12, iteration < 3 || interruptions == 0 || ContinuousClock.now < budget {
                iteration += 1
                let signal = Bool.random(using: &random) ? SIGINT : SIGTERM
                // From the third run on, while none was interrupted yet, signal at once.
                let late = interruptions == 0 && iteration >= 3
                let delay = late ? 0 : Int.random(in: 0...longest, using: &random)
                if try await interrupt(
                    with: signal, afterMilliseconds: delay, sources: sources,
                    label: "seed \(seed) iteration \(iteration)")
                {
                    interruptions += 1
                }
            }
            // Runs the signal came too late for test nothing: at least one must have been stopped mid-way.
            #expect(interruptions > 0, "seed \(seed): no signal arrived while the run was under way")
        }

        /// Signals a run `delay` ms after its first node started and checks what it leaves.
        /// - Returns: Whether the signal interrupted the run (rather than arriving after it ended).
        private func interrupt(with signal: Int32, afterMilliseconds delay: Int, sources: String, label: String)
            async throws -> Bool
        {
            let what = "\(label): \(signal == SIGINT ? "SIGINT" : "SIGTERM") \(delay) ms after the first node started"
            print("FaultSignalTests: \(what)")
            let scratch = try Scratch()
            try scratch.write("long.yaml", Self.longWorkflow(sources: sources))
            let child = try Child.flowrun(
                ["long.yaml", "--verbose", "--no-progress", "--report", "run.json", "--trace", "trace.json"],
                in: scratch.url)
            #expect(await child.waitForStderr(containing: " running"), "\(what): no node started")
            try await Task.sleep(for: .milliseconds(delay))
            guard child.isRunning else {
                // The run beat the signal: a slow moment is not a failure, but it is not this test either.
                let result = try #require(await child.wait())
                #expect(result.status == 0, "\(what): \(result.stderr)")
                print("FaultSignalTests: \(what): the run had already finished")
                return false
            }
            let sent = ContinuousClock.now
            child.signal(signal)
            let result = try #require(await child.wait(timeout: .seconds(600)), "\(what): flowrun did not exit")
            let took = try #require(child.exitedAt) - sent
            #expect(took < .seconds(5), "\(what): exit took \(took)")
            #expect(
                !result.terminatedBySignal, "\(what): killed by signal \(result.status)\n\(result.stderr.suffix(500))")
            let report = try ReportView(scratch.path("run.json"))
            if report.interrupted == false, result.status == 0 {
                // The signal came after the last node had finished (while the summary was printed): nothing was
                // left to interrupt, and the run is reported as it ended.
                #expect(OutputFolder.files(in: scratch.path("out")).count == Self.photoCount, "\(what)")
                #expect(report.unfinished.isEmpty, "\(what)")
                print("FaultSignalTests: \(what): the signal came after the run had ended; exit 0, report complete")
                return false
            }
            #expect(result.status == 130, "\(what): status \(result.status)\n\(result.stderr.suffix(500))")
            #expect(result.stdout.contains("(interrupted)"), "\(what): no summary\n\(result.stdout)")
            #expect(report.interrupted == true, "\(what)")
            #expect(report.exitCode == 130, "\(what)")
            #expect(report.nodes.count == Self.photoCount * 5, "\(what)")
            #expect(report.unfinished.isEmpty, "\(what): not final: \(report.unfinished)")
            // The trace is written too, and is JSON with one slice per attempt that ran.
            let trace = try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: scratch.path("trace.json"))))
            let slices = ((trace as? [String: Any])?["traceEvents"] as? [[String: Any]] ?? []).filter {
                $0["ph"] as? String == "X"
            }
            let spans = report.nodes.reduce(0) { $0 + (($1["spans"] as? [Any])?.count ?? 0) }
            #expect(slices.count == spans, "\(what): \(slices.count) trace slices for \(spans) spans")

            // Every file is complete and belongs to a save that succeeded; every succeeded save has its file.
            let out = scratch.path("out")
            let files = OutputFolder.files(in: out)
            #expect(OutputFolder.strays(in: out).isEmpty, "\(what): \(files)")
            let saved = (0..<Self.photoCount).filter { report.status("save[\(Self.key($0))]") == "succeeded" }.map {
                Self.key($0) + ".jpg"
            }
            #expect(files == saved.sorted(), "\(what): files \(files) vs succeeded saves \(saved)")
            for file in files { #expect(OutputFolder.looksComplete(out + "/" + file), "\(what): \(file) is partial") }
            if !files.isEmpty {
                let decoded = try await OutputFolder.decodeAll(files.map { out + "/" + $0 }, scratch: scratch.url)
                #expect(decoded.status == 0, "\(what): \(decoded.stdout)")
            }
            print(
                "FaultSignalTests: \(what): exit 130 after \(took), \(files.count) of \(Self.photoCount) photos written"
            )
            return true
        }

        /// Ctrl-C after the run has finished, while the summary is being printed (here: stdout is a full pipe
        /// nobody reads yet): it cannot interrupt anything any more, and must not kill flowrun before the report
        /// is written.
        @Test func aCtrlCWhileTheSummaryIsPrintedDoesNotLoseTheReport() async throws {
            let scratch = try Scratch()
            try scratch.write(
                "many.yaml",
                """
                version: 1
                tasks:
                  step: { type: noop, forEach: { file: items.txt } }
                """)
            // --verbose lists all 3,000 nodes: about 200 KB of summary, far more than a pipe holds.
            try scratch.write("items.txt", (0..<3_000).map { "item\($0)" }.joined(separator: "\n") + "\n")
            let fifo = scratch.path("stdout.fifo")
            try #require(mkfifo(fifo, 0o600) == 0)
            // Opened read-write, the FIFO never blocks the open and nobody drains it: the summary blocks. The
            // verbose log goes to /dev/null: on a pipe, a slow reader could block flowrun writing it during the
            // run, and the Ctrl-C below, meant for the summary, would interrupt the run.
            let child = try Child.flowrunInShell(
                prefix: "", ["many.yaml", "--verbose", "--report", "run.json"],
                in: scratch.url, redirect: "1<>stdout.fifo 2>/dev/null")
            #expect(await Self.waitBlockedWriting(child.pid), "flowrun never blocked writing its summary")
            child.signal(SIGINT)
            try await Task.sleep(for: .milliseconds(50))
            // Drain the summary, so flowrun can finish. Non-blocking: a FIFO whose writer died would block an open.
            let reader = open(fifo, O_RDONLY | O_NONBLOCK)
            try #require(reader >= 0)
            defer { close(reader) }
            var drained = 0
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let deadline = ContinuousClock.now + .seconds(60)
            while child.isRunning, ContinuousClock.now < deadline {
                let n = read(reader, &buffer, buffer.count)
                if n > 0 { drained += n } else { try await Task.sleep(for: .milliseconds(5)) }
            }
            let result = try #require(await child.wait(timeout: .seconds(300)))
            let killed = result.terminatedBySignal
            #expect(!killed, "flowrun was killed by the late Ctrl-C (signal \(result.status))")
            #expect(result.status == 0)
            #expect(drained > 64 * 1024)
            let report = try ReportView(scratch.path("run.json"))
            #expect(report.nodes.count == 3_000)
            #expect(report.unfinished.isEmpty)
            #expect(report.interrupted == false, "the run had finished before the Ctrl-C")
            #expect(
                OutputFolder.files(in: scratch.path("")).filter { !$0.hasPrefix(".flowrun/") } == [
                    "items.txt", "many.yaml", "run.json", "stdout.fifo",
                ])
        }

        /// Whether a thread of `pid` is blocked in a pipe write, within 20 s.
        static func waitBlockedWriting(_ pid: Int32) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
                for task in tasks {
                    let wchan = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
                    if wchan.contains("pipe_write") || wchan.contains("pipe_wait") { return true }
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return false
        }

        /// Ctrl-C during a slow download: the transfer is cancelled (the server sees the connection close and
        /// stops sending), flowrun exits 130 promptly, and nothing is written.
        @Test func aCtrlCCancelsAnInFlightDownload() async throws {
            // 50 MB at about 3 MB/s: a quarter of a minute if nothing stopped it.
            let server = try LocalHTTPServer(["/slow.jpg": .stream(byteCount: 50_000_000, pause: .milliseconds(20))])
            defer { server.stop() }
            let scratch = try Scratch()
            try scratch.write(
                "slow.yaml",
                """
                version: 1
                tasks:
                  get: { type: fetch, url: "\(server.urlString("/slow.jpg"))", maxBytes: 100000000 }
                  decode: { type: decode, dependsOn: get }
                  save: { type: write, path: out/slow.jpg, dependsOn: decode }
                """)
            let child = try Child.flowrun(["slow.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
            let deadline = ContinuousClock.now + .seconds(20)
            while server.bodyBytesSent("/slow.jpg") < 256 * 1024, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(server.bodyBytesSent("/slow.jpg") >= 256 * 1024, "the download never got going")
            let sent = ContinuousClock.now
            child.signal(SIGINT)
            let result = try #require(await child.wait(timeout: .seconds(600)))
            #expect(try #require(child.exitedAt) - sent < .seconds(5))
            #expect(result.status == 130 && !result.terminatedBySignal, "\(result.stderr.suffix(500))")
            let report = try ReportView(scratch.path("run.json"))
            #expect(report.status("get") == "cancelled", "\(report.cause("get"))")
            #expect(report.status("decode") == "cancelled" || report.status("decode") == "skipped")
            #expect(report.unfinished.isEmpty)
            // The server's side: the connection is closed and the stream stops well short of its end.
            #expect(
                await waitUntil(.seconds(10)) { server.openConnections == 0 }, "the download was not cancelled"
            )
            let stopped = server.bodyBytesSent("/slow.jpg")
            #expect(stopped < 50_000_000 / 2, "\(stopped) bytes sent")
            #expect(OutputFolder.files(in: scratch.path("out")).isEmpty)
        }

        /// A `command` whose program ignores SIGTERM and SIGINT: flowrun sees the ignored SIGTERM and kills the
        /// program's process group at once, so one Ctrl-C is enough.
        @Test func oneCtrlCStopsAProgramThatIgnoresTerm() async throws {
            let scratch = try Scratch()
            try scratch.write(
                "stubborn.yaml",
                """
                version: 1
                tasks:
                  stubborn: { type: command, argv: ["/bin/sh", "-c", "trap '' TERM INT; echo $$ > pid; sleep 30"] }
                  after: { type: noop, dependsOn: stubborn }
                """)
            let child = try Child.flowrun(["stubborn.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
            let programPID = try #require(await Self.readPID(scratch.path("pid")), "the program did not start")
            let sent = ContinuousClock.now
            child.signal(SIGINT)
            let result = try #require(await child.wait(timeout: .seconds(600)))
            #expect(try #require(child.exitedAt) - sent < .seconds(5))
            #expect(result.status == 130 && !result.terminatedBySignal, "\(result.stderr)")
            let report = try ReportView(scratch.path("run.json"))
            #expect(report.status("stubborn") == "cancelled")
            #expect(report.status("after") == "cancelled" || report.status("after") == "skipped")
            #expect(await Self.waitGone(programPID), "the program \(programPID) outlived flowrun")
            Self.reap(programPID)
        }

        /// A `command` whose program catches SIGTERM and goes on: the first Ctrl-C waits for it (SIGKILL only after
        /// the grace period); the second makes flowrun exit at once with 130.
        @Test func theSecondCtrlCExitsAtOnce() async throws {
            let scratch = try Scratch()
            // Catches TERM/INT (so flowrun waits out its grace period), and ends by itself within 10 s.
            try scratch.write(
                "catcher.yaml",
                """
                version: 1
                tasks:
                  catcher:
                    type: command
                    argv: ["/bin/sh", "-c", "trap 'echo caught >&2' TERM INT; echo $$ > pid; i=0; while [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done"]
                """)
            let child = try Child.flowrun(["catcher.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
            let programPID = try #require(await Self.readPID(scratch.path("pid")), "the program did not start")
            defer { Self.reap(programPID) }
            let first = ContinuousClock.now
            child.signal(SIGINT)
            #expect(await child.waitForStderr(containing: "interrupted: cancelling"))
            // The first cancel is still waiting for the program (its grace period is 2 s).
            try await Task.sleep(for: .milliseconds(300))
            #expect(
                child.isRunning || ContinuousClock.now - first > .milliseconds(1_500),
                "flowrun did not wait for the program after the first Ctrl-C")
            let second = ContinuousClock.now
            child.signal(SIGINT)
            let result = try #require(await child.wait(timeout: .seconds(600)))
            let took = try #require(child.exitedAt) - second
            if second - first < .milliseconds(1_500) {
                // Well inside the grace period: only the second Ctrl-C can have ended it this soon.
                #expect(took < .milliseconds(1_000), "the second Ctrl-C took \(took)")
            } else {
                print(
                    "FaultSignalTests: the test process was too busy to send the second Ctrl-C within the grace period")
            }
            #expect(result.status == 130 && !result.terminatedBySignal, "\(result.stderr)")
            // The program (in its own process group, out of the terminal's reach) does not outlive flowrun.
            #expect(await Self.waitGone(programPID), "the program \(programPID) outlived flowrun")
        }

        /// The pid a test program wrote to `path`, once it is there.
        static func readPID(_ path: String) async -> Int32? {
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline {
                if let text = try? String(contentsOfFile: path, encoding: .utf8), text.hasSuffix("\n"),
                    let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
                {
                    return pid
                }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return nil
        }

        /// Whether the process is gone (or a zombie) within 5 s.
        static func waitGone(_ pid: Int32) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(5)
            while ContinuousClock.now < deadline {
                if !isAlive(pid) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }

        static func isAlive(_ pid: Int32) -> Bool {
            guard kill(pid, 0) == 0 else { return false }
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8))?
                .split(separator: ")").last?.split(separator: " ").first
            return state != "Z"
        }

        /// Kills the test's program group if it is still there (it was started by this test, through flowrun).
        static func reap(_ pid: Int32) {
            if isAlive(pid) { kill(-pid, SIGKILL) }
        }
    }
}
