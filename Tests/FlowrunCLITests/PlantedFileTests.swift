import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Links and FIFOs planted where flowrun reads or writes its own files, and FIFOs given as inputs: flowrun
/// neither writes through a link nor waits on a FIFO.
@Suite struct PlantedFileTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    private func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        let child = try Child.flowrun(arguments, in: scratch.url)
        return try #require(await child.wait(timeout: .seconds(600)), "flowrun \(arguments) did not finish: it hangs")
    }

    /// A link at the store's lock or journal: the file it points to is left as it was, and the run goes on
    /// without the store, saying why.
    @Test(arguments: ["lock", "journal"])
    func aLinkPlantedInTheStoreIsNotWrittenThrough(file: String) async throws {
        try scratch.write("flow.yaml", "version: 1\ntasks:\n  say: { type: command, argv: [echo, hi] }\n")
        let victim = try scratch.write("victim.txt", "precious\n")
        try FileManager.default.createDirectory(atPath: scratch.path(".flowrun"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: scratch.path(".flowrun/flow.yaml.\(file)"), withDestinationPath: victim)
        let result = try await flowrun(["flow.yaml", "--no-progress"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious\n")
        #expect(
            result.stderr
                == "warning: cannot use the store: the store's file .flowrun/flow.yaml.\(file) cannot be used: it is a "
                + "symbolic link, which flowrun does not follow in its store; remove it, or give this run another "
                + "--state-dir; running without it (nothing is reused or recorded)\n")
    }

    /// A FIFO in place of the journal or of a stored blob: refused at once, not read (which would wait forever
    /// for a writer).
    @Test func fifosInTheStoreAreRefusedNotWaitedOn() async throws {
        try scratch.write("in.txt", "data\n")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.txt }
              kept: { type: command, argv: [cat], stdin: true, dependsOn: read, cache: true }
              next: { type: command, argv: [cat], stdin: true, dependsOn: kept }
            """)
        let first = try await flowrun(["flow.yaml", "--no-progress"])
        #expect(first.status == 0, "\(first.stderr)")
        let blobs = OutputFolder.files(in: scratch.path(".flowrun/blobs"))
        try #require(blobs.count == 1, "\(blobs)")
        let blob = scratch.path(".flowrun/blobs/\(blobs[0])")
        try FileManager.default.removeItem(atPath: blob)
        #expect(mkfifo(blob, 0o600) == 0)
        let blobRun = try await flowrun(["flow.yaml", "--no-progress"])
        #expect(blobRun.status == 0, "\(blobRun.stderr)")
        #expect(
            blobRun.stderr
                == "warning: 1 stored output cannot be used, so its node runs again: kept: cannot read "
                + ".flowrun/blobs/\(blobs[0]): it is a FIFO, not a regular file\n")

        let journal = scratch.path(".flowrun/flow.yaml.journal")
        try FileManager.default.removeItem(atPath: journal)
        #expect(mkfifo(journal, 0o600) == 0)
        let journalRun = try await flowrun(["flow.yaml", "--no-progress"])
        #expect(journalRun.status == 0, "\(journalRun.stderr)")
        #expect(
            journalRun.stderr.hasSuffix(
                "warning: cannot use the store: the store's file .flowrun/flow.yaml.journal cannot be used: it is a "
                    + "FIFO or a socket, not a regular file; remove it, or give this run another --state-dir; running "
                    + "without it (nothing is reused or recorded)\n"), "\(journalRun.stderr)")
    }

    /// A `fetch` of a FIFO fails its node at once, naming what the file is, instead of blocking past its
    /// `timeout` and a SIGTERM.
    @Test func fetchingAFIFOFailsTheNodeAtOnce() async throws {
        #expect(mkfifo(scratch.path("pipe"), 0o600) == 0)
        // A bound far below the node's timeout, and far above any machine's load: the node did not wait it out.
        try scratch.write("flow.yaml", "version: 1\ntasks:\n  read: { type: fetch, url: pipe, timeout: 600s }\n")
        let started = ContinuousClock.now
        let result = try await flowrun(["flow.yaml", "--no-progress"])
        #expect(ContinuousClock.now - started < .seconds(300))
        #expect(result.status == 1)
        #expect(
            result.stdout.contains(
                "flow.yaml:3:3: error: read failed: cannot read 'pipe': it is a FIFO, not a regular file\n"),
            "\(result.stdout)")
    }
}
