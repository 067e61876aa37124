import Foundation
import Testing

@testable import FlowKit

/// The run's ledger of written files: a node may rewrite its own file (a retry), never another node's.
@Suite struct OutputLedgerTests {
    @Test func aNodeKeepsItsFileAcrossAttemptsAndOthersAreRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createSymbolicLink(
            atPath: folder.path + "/alias", withDestinationPath: folder.path)
        let ledger = OutputLedger()
        #expect(ledger.claim(folder.path + "/a.jpg", for: "save[0]") == nil)
        #expect(ledger.claim(folder.path + "/a.jpg", for: "save[0]") == nil, "a retry rewrites its own file")
        #expect(ledger.claim(folder.path + "/./a.jpg", for: "save[1]") == "save[0]")
        #expect(ledger.claim(folder.path + "/alias/a.jpg", for: "copy") == "save[0]")
        #expect(ledger.claim(folder.path + "/b.jpg", for: "save[1]") == nil)
    }

    @Test func contextsMadeByHandShareNoLedger() {
        let first = NodeContext(nodeID: "a", typeName: "write")
        let second = NodeContext(nodeID: "b", typeName: "write")
        #expect(first.claimOutput("/tmp/x.jpg") == nil)
        #expect(second.claimOutput("/tmp/x.jpg") == nil)
    }
}
