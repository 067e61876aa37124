import Foundation
import Testing

@testable import FlowKit

/// The YAML layer against hostile and broken input: alias bombs, deep nesting, duplicate keys, bad encodings.
@Suite struct YAMLLoaderTests {
    private func parse(_ bytes: [UInt8], limits: YAMLDocument.Limits = .init()) -> (YAMLNode?, Diagnostics) {
        var diagnostics = Diagnostics()
        let root = YAMLDocument.parse(bytes, path: "w.yaml", limits: limits, diagnostics: &diagnostics)
        return (root, diagnostics)
    }

    private func parse(_ text: String) -> (YAMLNode?, Diagnostics) { parse(Array(text.utf8)) }

    // MARK: Abuse

    /// Billion laughs: ten levels of nine aliases each would expand to 10⁹ nodes.
    @Test func aliasBombFailsFastWithAnError() throws {
        var yaml = "version: 1\nparams:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
        for level in 1...9 {
            let aliases = Array(repeating: "*l\(level - 1)", count: 9).joined(separator: ", ")
            yaml += "  l\(level): &l\(level) [\(aliases)]\n"
        }
        yaml += "tasks:\n  a: { type: noop }\n"

        let clock = ContinuousClock()
        var root: YAMLNode?
        var diagnostics = Diagnostics()
        let elapsed = clock.measure { (root, diagnostics) = parse(Array(yaml.utf8)) }
        #expect(root == nil)
        let error = try #require(diagnostics.all.first)
        #expect(error.message == "aliases expand to more than 100000 nodes")
        #expect(error.hint?.contains("alias bomb") == true)
        // Reported at the first alias past the budget: levels 1–4 copy 74,718 nodes, l5's first *l4 66,430 more.
        #expect(error.location == SourceLocation(path: "w.yaml", line: 8, column: 12))
        // Not asserted (shared machines are noisy); printed for whoever looks.
        print("alias bomb rejected in \(elapsed)")

        // The loader reports it the same way and plans nothing.
        let result = TestTasks.load(yaml)
        #expect(result.plan == nil)
        #expect(result.diagnostics.all.map(\.message) == ["aliases expand to more than 100000 nodes"])
    }

    @Test func aliasesWithinTheBudgetAreCopied() throws {
        let (root, diagnostics) = parse("base: &b { x: 1 }\ncopy: *b\n")
        #expect(diagnostics.all.isEmpty)
        let pairs = try #require(root?.mapping)
        #expect(pairs[1].value.value.description == "{x: 1}")
        // A copy is located at the alias, where the user wrote it.
        #expect(pairs[1].value.location.line == 2)
    }

    @Test func unknownAliasIsAnError() {
        let (root, diagnostics) = parse("a: *nowhere\n")
        #expect(root == nil)
        #expect(diagnostics.all.first?.message == "unknown alias '*nowhere'")
    }

    @Test(arguments: ["[", "{a: "])
    func nestingOneHundredThousandDeepFailsWithAnError(_ opener: String) throws {
        let closer = opener == "[" ? "]" : "}"
        let depth = 100_000
        let yaml =
            "deep: " + String(repeating: opener, count: depth) + "x" + String(repeating: closer, count: depth) + "\n"
        let (root, diagnostics) = parse(Array(yaml.utf8))
        #expect(root == nil)
        let error = try #require(diagnostics.all.first)
        #expect(error.message == "nesting deeper than 128 levels")
        #expect(error.location?.line == 1)

        let result = TestTasks.load("version: 1\ntasks:\n  a: { type: noop }\n" + yaml)
        #expect(result.plan == nil)
        #expect(result.diagnostics.all.map(\.message) == ["nesting deeper than 128 levels"])
    }

    @Test func nestingWithinTheLimitIsAccepted() {
        let yaml = "deep: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        let (root, diagnostics) = parse(Array(yaml.utf8))
        #expect(root != nil)
        #expect(diagnostics.all.isEmpty)
    }

    // MARK: Duplicates

    @Test func duplicateKeysAreReportedWithBothLocations() throws {
        let (root, diagnostics) = parse(
            """
            version: 1
            tasks:
              a:
                type: noop
                queue: x
                queue: y
            """)
        #expect(root != nil, "duplicates are reported and parsing goes on")
        let error = try #require(diagnostics.all.first)
        #expect(diagnostics.all.count == 1)
        #expect(error.message == "duplicate key 'queue'")
        #expect(error.location == SourceLocation(path: "w.yaml", line: 6, column: 5))
        #expect(error.notes.map(\.location) == [SourceLocation(path: "w.yaml", line: 5, column: 5)])
        #expect(error.notes.map(\.message) == ["'queue' first defined here"])
        // The first entry wins.
        let task = try #require(root?.mapping?[1].value.mapping?[0].value.mapping)
        #expect(task.map(\.value.scalar) == ["noop", "x"])
    }

    @Test func duplicateTaskIdsAreCalledThat() throws {
        let result = TestTasks.load(
            "version: 1\ntasks:\n  a: { type: noop }\n  b: { type: noop }\n  a: { type: sleep }\n")
        let error = try #require(result.diagnostics.all.first)
        #expect(error.message == "duplicate task id 'a'")
        #expect(error.location?.line == 5)
        #expect(error.notes.first?.location?.line == 3)
    }

    @Test func duplicateKeysInSeveralMapsAreAllReported() {
        let (_, diagnostics) = parse("a: 1\na: 2\nb: { c: 1, c: 2 }\n")
        #expect(diagnostics.all.map(\.message) == ["duplicate key 'a'", "duplicate key 'c'"])
    }

    // MARK: Encoding and positions

    @Test func invalidUTF8IsLocatedAtTheOffendingByte() throws {
        // Line 3 holds "é" (valid, two bytes) before the invalid byte: byte 9 of the line, but scalar 8.
        let bytes = Array("version: 1\nname: x\nurl: é_".utf8) + [0xFF] + Array("z\n".utf8)
        let (root, diagnostics) = parse(bytes)
        #expect(root == nil)
        let error = try #require(diagnostics.all.first)
        #expect(error.message == "the file is not valid UTF-8")
        #expect(error.location == SourceLocation(path: "w.yaml", line: 3, column: 8))
    }

    @Test(arguments: [[0xC3] as [UInt8], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF8]])
    func truncatedOrOverlongSequencesAreRejected(_ bad: [UInt8]) throws {
        let (_, diagnostics) = parse(Array("a: 1\nb: ".utf8) + bad + Array("\n".utf8))
        let error = try #require(diagnostics.all.first)
        #expect(error.location == SourceLocation(path: "w.yaml", line: 2, column: 4))
    }

    @Test(arguments: ["", "\n\n", "# only a comment\n", "   \n  # indented comment\n"])
    func emptyFileIsAnError(_ text: String) throws {
        let (root, diagnostics) = parse(text)
        #expect(root == nil)
        #expect(diagnostics.all.isEmpty, "the YAML layer sees no document; the loader names the problem")
        let result = TestTasks.load(text)
        #expect(result.plan == nil)
        let error = try #require(result.diagnostics.all.first)
        #expect(error.message == "the workflow is empty")
        #expect(error.location == SourceLocation(path: "test.yaml", line: 1, column: 1))
    }

    @Test func columnsCountUnicodeScalarsNotBytes() throws {
        let line = #"  f: { type: fetch, url: "ééé", maxByts: 5 }"#
        let result = TestTasks.load("version: 1\ntasks:\n\(line)\n")
        let error = try #require(result.diagnostics.all.first)
        #expect(error.message == "unknown key 'maxByts' in task 'f' (fetch)")
        #expect(error.suggestion == "maxBytes")
        let token = try #require(line.unicodeScalars.firstIndex(of: "m"))
        #expect(line.utf8.distance(from: line.startIndex, to: token) + 1 == 36, "the byte column, for contrast")
        #expect(line.unicodeScalars.distance(from: line.startIndex, to: token) + 1 == 33)
        #expect(error.location == SourceLocation(path: "test.yaml", line: 3, column: 33))

        // The caret lines up under the token in the rendered snippet.
        let rendered = TestTasks.render(result)
        let lines = rendered.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[1] == " 3 | \(line)")
        #expect(lines[2] == "   | " + String(repeating: " ", count: 32) + "^")
    }

    @Test func referenceColumnsAfterNonASCIITextPointAtTheDollar() throws {
        let result = TestTasks.load("version: 1\ntasks:\n  f: { type: fetch, url: \"ü/ß/${params.zz}\" }\n")
        let error = try #require(result.diagnostics.all.first)
        #expect(error.location == SourceLocation(path: "test.yaml", line: 3, column: 31))
    }

    @Test func syntaxErrorsPointAtTheProblemAndWhereTheConstructStarts() throws {
        let (root, diagnostics) = parse("a: [1, 2\nb: 3\n")
        #expect(root == nil)
        let error = try #require(diagnostics.all.first)
        #expect(error.message.hasPrefix("invalid YAML: "))
        #expect(error.notes.first?.location == SourceLocation(path: "w.yaml", line: 1, column: 4))
    }

    @Test func tabIndentationIsNamed() throws {
        let (_, diagnostics) = parse("a:\n\tb: 1\n")
        let error = try #require(diagnostics.all.first)
        #expect(error.message == "invalid YAML: a tab character is used for indentation")
        #expect(error.location == SourceLocation(path: "w.yaml", line: 2, column: 1))
    }

    @Test func severalDocumentsAreRejected() throws {
        let (_, diagnostics) = parse("a: 1\n---\nb: 2\n")
        #expect(diagnostics.all.first?.message == "a workflow file holds one YAML document")
        #expect(diagnostics.all.first?.location?.line == 2)
    }

    @Test func scalarsAreTypedByTheCoreSchemaUnlessQuoted() throws {
        let (root, _) = parse("a: 3\nb: '3'\nc: 0.5\nd: true\ne: yes\nf: ~\ng: 0x1F\nh: !!str 4\n")
        let values = try #require(root?.mapping).map(\.value.value)
        #expect(
            values == [.int(3), .string("3"), .double(0.5), .bool(true), .string("yes"), .null, .int(31), .string("4")])
    }
}
