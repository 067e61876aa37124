import Foundation
import Testing

/// `explain` says what changed in a source as people read it: the whole path, spaces and all, once, and a
/// modification time as a date.
@Suite struct SourceChangeExplainTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test func aChangedFileInAFolderWithSpacesIsNamedWholeWithItsTimesAsDates() async throws {
        let photo = "photos/basque trip/Aitz Gorri.txt"
        try scratch.write(photo, "one")
        try setModified(photo, to: 1_767_225_600)  // 2026-01-01T00:00:00Z
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "photos/**/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.rel}", dependsOn: read }
            """)
        #expect(try await Child.runFlowrun(["flow.yaml"], in: scratch.url).status == 0)
        // Rewritten in place, so the inode stays and only size and time differ.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path(photo)))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data("three".utf8))
        try handle.close()
        try setModified(photo, to: 1_767_312_000.5)  // 2026-01-02T00:00:00.5Z

        let explain = try await Child.runFlowrun(["explain", "flow.yaml", "read[\(photo)]"], in: scratch.url)
        #expect(explain.status == 0)
        let cause = explain.stdout.drop { $0 != ")" }
        #expect(
            cause == """
                ): runs: source changed: file photos/basque trip/Aitz Gorri.txt (size 3 → 5, \
                mtime 2026-01-01T00:00:00.000000000Z → 2026-01-02T00:00:00.500000000Z)

                """, "\(explain.stdout)")
        #expect(explain.stdout.hasPrefix("read[\(photo)] (key "), "\(explain.stdout)")
    }

    private func setModified(_ name: String, to secondsSince1970: TimeInterval) throws {
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSince1970: secondsSince1970)], ofItemAtPath: scratch.path(name))
    }
}
