import Foundation
import Testing

/// An item put into a written path stays in the folder the path names: `out/${item}` with the item
/// `../escaped.txt` would write next to the workflow. Items known before the run are refused by validation
/// (the `item-path-climbs-out` golden); those of a list made at run time fail their own node.
@Suite struct ItemPathContainmentCLITests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func anItemOfARunTimeListThatClimbsOutFailsItsNodeAndWritesNothing() async throws {
        try scratch.write(
            "flow.yaml",
            #"""
            version: 1
            tasks:
              list: { type: command, argv: [printf, "../escaped.txt\nkept.txt\n"] }
              note: { type: command, forEach: { from: list }, argv: [echo, "${item}"] }
              save: { type: write, path: "out/${item}", dependsOn: note }
            """#)
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        let errors = result.stdout.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(
            errors == [
                "flow.yaml:5:35: error: save[../escaped.txt] failed: 'save[../escaped.txt]' would write 'escaped.txt',"
                    + " outside 'out', the folder its path names"
            ], "\(result.stdout)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("escaped.txt")))
        #expect(try String(contentsOfFile: scratch.path("out/kept.txt"), encoding: .utf8) == "kept.txt\n")
    }

    @Test func anItemKnownBeforeTheRunThatClimbsOutStopsTheRun() async throws {
        try scratch.write("list.txt", "../escaped.txt\nkept.txt\n")
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              note: { type: command, forEach: { file: list.txt }, argv: [echo, "${item}"] }
              save: { type: write, path: "out/${item.path}", dependsOn: note }
            """)
        let result = try await Child.runFlowrun(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 2)
        #expect(
            result.stderr.hasPrefix(
                "flow.yaml:4:35: error: 'save[../escaped.txt]' would write 'escaped.txt', outside 'out', the folder"
                    + " its path names\n"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out")), "nothing may run")
    }
}
