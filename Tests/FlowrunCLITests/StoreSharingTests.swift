import Foundation
import Testing

/// Two workflows beside each other share one store (`.flowrun`): cleaning one never takes what a live run
/// of the other has just stored.
@Suite struct StoreSharingTests {
    @Test func cleaningOneWorkflowKeepsTheBlobsALiveRunOfAnotherJustWrote() async throws {
        let scratch = try Scratch()
        try scratch.write("in.txt", "data\n")
        try scratch.write("a.yaml", "version: 1\ntasks:\n  only: { type: noop }\n")
        try scratch.write(
            "b.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.txt }
              kept: { type: command, argv: [cat], stdin: true, dependsOn: read, cache: true }
              hold: { type: sleep, duration: 5s, dependsOn: kept }
            """)
        let running = try Child.flowrun(["b.yaml", "--no-progress"], in: scratch.url)
        let blobs = scratch.path(".flowrun/blobs")
        let deadline = ContinuousClock.now + .seconds(30)
        // The blob in place, not its temporary (`.flowrun-blob.XXXXXX`) before the rename.
        func stored() -> [String] { OutputFolder.files(in: blobs).filter { !$0.hasPrefix(".flowrun-") } }
        while stored().isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let written = stored()
        try #require(written.count == 1, "b.yaml stored no blob within 30 s")

        let clean = try await Child.runFlowrun(["cache", "clean", "a.yaml"], in: scratch.url)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(stored() == written, "cache clean of a.yaml removed b.yaml's new blob")

        let first = try #require(await running.wait(), "b.yaml did not finish")
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await Child.runFlowrun(["b.yaml", "--no-progress", "--verbose"], in: scratch.url)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\nkept  cached "), "\(again.stdout)")
    }

    /// A `--state-dir` shared with a user's files: `cache clean` removed what the user kept under its
    /// `previews/`. It removes only what the store made, and cleans nothing while a folder it owns holds files it
    /// did not make, saying which.
    @Test func cacheCleanRefusesAStateFolderHoldingFilesItDidNotMake() async throws {
        let scratch = try Scratch()
        try scratch.write("in.txt", "data\n")
        try scratch.write(
            "b.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.txt }
              kept: { type: command, argv: [cat], stdin: true, dependsOn: read, cache: true }
            """)
        let shared = scratch.path("shared")
        #expect(
            try await Child.runFlowrun(["b.yaml", "--no-progress", "--state-dir", shared], in: scratch.url).status == 0)
        let blob = try #require(OutputFolder.files(in: shared + "/blobs").first)
        try scratch.write("shared/previews/holiday.jpg", "the user's\n")
        try scratch.write("shared/blobs/notes.txt", "the user's\n")
        try scratch.write("shared/blobs/" + blob.prefix(2) + "/mine.txt", "the user's\n")
        let refusal =
            "flowrun cleans only folders of its own, so nothing was removed: move them out, or give "
            + "--state-dir a folder of its own\n"
        let clean = try await Child.runFlowrun(["cache", "clean", "b.yaml", "--state-dir", shared], in: scratch.url)
        #expect(clean.status == 2)
        #expect(
            clean.stderr == "error: \(shared)/blobs holds files flowrun did not make (\(blob.prefix(2))/mine.txt, "
                + "notes.txt); \(refusal)")
        try FileManager.default.removeItem(atPath: shared + "/blobs/notes.txt")
        try FileManager.default.removeItem(atPath: shared + "/blobs/" + blob.prefix(2) + "/mine.txt")
        let previews = try await Child.runFlowrun(["cache", "clean", "b.yaml", "--state-dir", shared], in: scratch.url)
        #expect(previews.status == 2)
        #expect(
            previews.stderr == "error: \(shared)/previews holds files flowrun did not make (holiday.jpg); \(refusal)")
        #expect(
            try String(contentsOfFile: shared + "/previews/holiday.jpg", encoding: .utf8) == "the user's\n")
        let again = try await Child.runFlowrun(
            ["b.yaml", "--no-progress", "--verbose", "--state-dir", shared], in: scratch.url)
        #expect(again.stdout.contains("\nkept  cached "), "nothing of the store was removed either: \(again.stdout)")
        try FileManager.default.removeItem(atPath: shared + "/previews/holiday.jpg")
        let cleaned = try await Child.runFlowrun(["cache", "clean", "b.yaml", "--state-dir", shared], in: scratch.url)
        #expect(cleaned.status == 0, "\(cleaned.stderr)")
        #expect(OutputFolder.files(in: shared + "/blobs").isEmpty)
    }
}
