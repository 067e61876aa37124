import FlowImaging
import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// The stamps the store's decisions read ahead on another core (``UpToDate/FileStamps``) are those `stat` gives,
/// for every node's source and written file, whether the read-ahead has reached the node or not; a path other
/// than the one read ahead is asked of `stat` then.
@Suite struct FileStampsTests {
    let folder: TemporaryFolder
    let plan: Plan

    /// 2,100 items of `fetch → write` (4,200 nodes, over the read-ahead threshold); every third output exists.
    init() throws {
        folder = try TemporaryFolder()
        for index in 0..<2100 {
            let name = String(format: "f%04d.txt", index)
            try folder.write("in/\(name)", "item \(index)\n")
            if index.isMultiple(of: 3) { try folder.write("out/\(name)", Data(repeating: 7, count: index)) }
        }
        let workflow = try folder.write(
            "wf.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }
            """)
        let result = WorkflowLoader(registry: .standard, environment: [:]).plan(path: workflow)
        #expect(result.diagnostics.all.isEmpty)
        plan = try #require(result.plan)
    }

    /// Each node's file and what `stat` says of it now.
    func files() throws -> [(node: Int, path: String)] {
        let resolved = try #require(plan.resolvedNodes)
        return try plan.nodes.indices.map { index in
            let files = try #require(resolved.files(index, of: plan.nodes[index].taskIndex))
            return (index, try #require(files.source ?? files.output))
        }
    }

    @Test(arguments: [false, true]) func everyNodesFileIsReadAheadAsStatReadsIt(waiting: Bool) throws {
        let stamps = UpToDate.FileStamps(plan: plan, outputs: true)
        if waiting { stamps.waitForReadAhead() }
        let files = try files()
        #expect(files.count == 4200)
        var found = 0
        for (node, path) in files {
            let now = FileStamp.withChangeTime(path: path)
            let readAhead = stamps.stamp(ofRegularFile: path, node: node)
            #expect(readAhead?.stamp == now?.stamp && readAhead?.changed == now?.changed, "\(path)")
            if now != nil { found += 1 }
        }
        #expect(found == 2100 + 700)
    }

    /// A node asked about a file it was not read ahead for gets `stat`'s answer for that file, not its own.
    @Test func anotherPathThanTheOneReadAheadIsAskedOfStat() throws {
        let stamps = UpToDate.FileStamps(plan: plan, outputs: true)
        let files = try files()
        let other = files[1].path
        #expect(stamps.stamp(ofRegularFile: other, node: 0)?.stamp == FileStamp(path: other))
        #expect(stamps.stamp(ofRegularFile: folder.path("none"), node: 0) == nil)
    }

    /// Without records there is nothing to compare written files with: only sources are read ahead. A file read
    /// ahead is answered as it was when it was read; one that was not, as it is when the decisions reach it.
    @Test func writtenFilesAreReadAheadOnlyWhenAsked() throws {
        let withOutputs = UpToDate.FileStamps(plan: plan, outputs: true)
        let sourcesOnly = UpToDate.FileStamps(plan: plan, outputs: false)
        withOutputs.waitForReadAhead()
        sourcesOnly.waitForReadAhead()
        let files = try files()
        let output = try #require(files.first { $0.path.hasSuffix("out/f0003.txt") })
        try Data("longer than before\n".utf8).write(to: URL(fileURLWithPath: output.path))
        #expect(withOutputs.stamp(ofRegularFile: output.path, node: output.node)?.stamp.size == 3)
        #expect(sourcesOnly.stamp(ofRegularFile: output.path, node: output.node)?.stamp.size == 19)
    }
}
