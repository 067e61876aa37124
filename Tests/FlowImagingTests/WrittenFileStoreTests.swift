import FlowImaging
import FlowImagingBench
import FlowKit
import FlowKitTesting
import Foundation
import TestSupport
import Testing

/// What a `write` tells the store of the file it wrote: recorded as the node's output without reading it back.
@Suite struct WrittenFileStoreTests {
    @Test func aWriteSaysWhatItWroteAsTheFileIsOnDisk() throws {
        let temporary = try TemporaryFolder()
        let op = WriteOperation(context: context("write", ["path": .string("raw.dat")], directory: temporary.path))
        guard case .success? = run(op, after: BytesOperation(payload: DataPayload(Data("bytes".utf8), source: "x")))
        else {
            Issue.record("the write failed")
            return
        }
        let path = temporary.path + "/raw.dat"
        let written = try #require(op.writtenFile)
        #expect(written.path == path)
        #expect(written.stamp == FileStamp(path: path))
        #expect(
            OutputRecord(path: path, stamp: written.stamp, sha256: written.sha256)
                == OutputRecord(
                    path: path, stamp: written.stamp, sha256: try #require(ContentDigest.ofFile(atPath: path))))
    }

    @Test func theStoreRecordsWhatTheWriteSaysAndReadsBackOnlyAnotherPath() throws {
        let temporary = try TemporaryFolder()
        let folder = temporary.path
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              read: { type: fetch, url: in.txt }
              save: { type: write, path: out.txt, dependsOn: read }
            """, registry: .standard, path: folder + "/w.yaml")
        let decisions = UpToDate(plan: plan, records: [:], settings: .init())
        let save = try #require(plan.nodes.firstIndex { $0.id == "save" })
        let path = try #require(decisions.outputPaths[save])
        try Data("on disk".utf8).write(to: URL(fileURLWithPath: path))
        let stamp = try #require(FileStamp(path: path))
        let storeFolder = folder + "/.flowrun"

        func recorded(_ written: WrittenFile) throws -> OutputRecord? {
            let store = try RunStore.open(directory: storeFolder, name: "w", warn: { _ in })
            store.journal(save, of: plan, decisions: decisions, run: "r", written: written)
            store.close()
            return RunStore.read(directory: storeFolder, name: "w").latest["save"]?.output
        }
        // What the write says it wrote is recorded as it says: the file is not read again.
        let said = WrittenFile(path: path, stamp: stamp, bytes: Data("as written".utf8))
        #expect(
            try recorded(said)
                == OutputRecord(path: path, stamp: stamp, sha256: ContentDigest.of(Data("as written".utf8))))
        // A file written elsewhere than the node's output says nothing of it: the output is read back.
        let elsewhere = WrittenFile(path: folder + "/other.txt", stamp: stamp, bytes: Data("as written".utf8))
        #expect(
            try recorded(elsewhere)
                == OutputRecord(path: path, stamp: stamp, sha256: ContentDigest.of(Data("on disk".utf8))))
    }
}
