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
        while OutputFolder.files(in: blobs).isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let written = OutputFolder.files(in: blobs)
        try #require(written.count == 1, "b.yaml stored no blob within 30 s")

        let clean = try await Child.runFlowrun(["cache", "clean", "a.yaml"], in: scratch.url)
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(OutputFolder.files(in: blobs) == written, "cache clean of a.yaml removed b.yaml's new blob")

        let first = try #require(await running.wait(), "b.yaml did not finish")
        #expect(first.status == 0, "\(first.stderr)")
        let again = try await Child.runFlowrun(["b.yaml", "--no-progress", "--verbose"], in: scratch.url)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.contains("\nkept  cached "), "\(again.stdout)")
    }
}
