import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// SIGINT or SIGKILL at a random moment of a photo run, then a plain rerun: the folder ends byte-identical to a
/// clean run's, and the rerun does only the work that was missing.
extension FaultHeavyTests {
    @Suite(.serialized) struct FaultResumeTests {
        @Test func aRunStoppedAtARandomMomentIsResumedByAPlainRerun() async throws {
            let seed = SeededGenerator.seed()
            print("FaultResumeTests: seed \(seed) (replay with FLOWRUN_FAULT_SEED=\(seed))")
            var random = SeededGenerator(seed: seed)
            let shared = try Scratch()
            let sources = try await FaultSignalTests.makeSources(in: shared)
            // The reference: one clean run without the store.
            try shared.write("long.yaml", FaultSignalTests.longWorkflow(sources: sources))
            let started = ContinuousClock.now
            let clean = try await Child.runFlowrun(["long.yaml", "--no-progress", "--no-cache"], in: shared.url)
            let runTime = ContinuousClock.now - started
            #expect(clean.status == 0, "\(clean.stderr)")
            let reference = try contents(of: shared.path("out"))
            #expect(reference.count == FaultSignalTests.photoCount)
            let longest = max(Int(runTime / .milliseconds(1)), 200)

            let budget = ContinuousClock.now + .seconds(20)
            var iteration = 0
            while iteration < 4 || (iteration < 10 && ContinuousClock.now < budget) {
                iteration += 1
                let signal = iteration % 2 == 0 ? SIGKILL : SIGINT
                let delay = Int.random(in: 0...longest, using: &random)
                try await stopAndResume(
                    signal: signal, afterMilliseconds: delay, sources: sources, reference: reference,
                    label: "seed \(seed) iteration \(iteration)")
            }
        }

        private func stopAndResume(
            signal: Int32, afterMilliseconds delay: Int, sources: String, reference: [String: Data], label: String
        ) async throws {
            let what = "\(label): \(signal == SIGINT ? "SIGINT" : "SIGKILL") after \(delay) ms"
            let scratch = try Scratch()
            try scratch.write("long.yaml", FaultSignalTests.longWorkflow(sources: sources))
            let child = try Child.flowrun(["long.yaml", "--verbose", "--no-progress"], in: scratch.url)
            #expect(await child.waitForStderr(containing: " running"), "\(what): no node started")
            try await Task.sleep(for: .milliseconds(delay))
            child.signal(signal)
            let stopped = try #require(await child.wait(timeout: .seconds(600)), "\(what): flowrun did not exit")
            // SIGKILL cannot be caught: a write it interrupts leaves its temporary (`.flowrun-NAME.XXXXXX`, never
            // the output's own name) behind, which the rerun removes. Every output in the folder is complete: a
            // file there is byte-identical to the clean run's.
            let present = try contents(of: scratch.path("out")).filter { !$0.key.hasPrefix(".flowrun-") }
            for (name, bytes) in present { #expect(reference[name] == bytes, "\(what): \(name) differs") }

            let resumed = try await Child.runFlowrun(
                ["long.yaml", "--no-progress", "--report", "run.json"], in: scratch.url)
            #expect(resumed.status == 0, "\(what): \(resumed.stdout.suffix(400))\(resumed.stderr)")
            #expect(try contents(of: scratch.path("out")) == reference, "\(what): the folder differs from a clean run")
            let report = try ReportView(scratch.path("run.json"))
            let rewritten = (0..<FaultSignalTests.photoCount).filter {
                report.status("save[\(FaultSignalTests.key($0))]") == "succeeded"
            }
            let missing = reference.count - present.count
            // A graceful stop journals every write that finished; after SIGKILL, a write may have landed just before
            // its record (at most one per slot of the default queue), and is redone.
            let slack = signal == SIGINT ? 0 : ProcessInfo.processInfo.activeProcessorCount
            #expect(
                rewritten.count >= missing && rewritten.count <= missing + slack,
                "\(what): \(missing) missing, \(rewritten.count) written again")
            // Items whose thumbnail was kept were not read, decoded or resized again.
            for index in 0..<FaultSignalTests.photoCount
            where report.status("save[\(FaultSignalTests.key(index))]") == "cached" {
                #expect(
                    report.status("read[\(FaultSignalTests.key(index))]") == "cached", "\(what): read[\(index)] ran")
                #expect(
                    report.status("decode[\(FaultSignalTests.key(index))]") == "cached", "\(what): decode[\(index)] ran"
                )
            }
            print(
                "FaultResumeTests: \(what): exit \(stopped.status), \(present.count) kept, \(rewritten.count) written by the rerun"
            )
        }

        private func contents(of folder: String) throws -> [String: Data] {
            var files: [String: Data] = [:]
            for name in OutputFolder.files(in: folder) {
                files[name] = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            }
            return files
        }
    }
}
