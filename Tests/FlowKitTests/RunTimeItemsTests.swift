import Foundation
import Testing

@testable import FlowKit

/// How a producer's output becomes the items of a list made at run time (`forEach: { from: TASK }`).
@Suite struct RunTimeItemsTests {
    private func items(_ text: String, key: String? = nil) -> Result<RunTimeItems.List, RunTimeItems.Problem> {
        RunTimeItems.items(
            of: Data(text.utf8),
            keyField: key.map { Located($0, at: SourceLocation(path: "w.yaml", line: 1, column: 1)) })
    }

    private func described(_ result: Result<RunTimeItems.List, RunTimeItems.Problem>) -> [String] {
        switch result {
        case .success(let list):
            list.items.enumerated().map { index, item in
                "\(item.key) = \(ForEachExpansion.canonicalText(item.value))"
                    + (list.duplicates[index].map { " (duplicate of item \($0.first), key '\($0.key)')" } ?? "")
            }
        case .failure(let problem): ["error: \(problem.message)"]
        }
    }

    @Test func linesAreTrimmedBlankLinesLeftOutAndTheLastNewlineOptional() {
        #expect(described(items("a.jpg\r\n\n  b c.jpg  \nd")) == ["a.jpg = a.jpg", "b c.jpg = b c.jpg", "d = d"])
        #expect(described(items("")) == [])
        #expect(described(items("\n \n")) == [])
    }

    @Test func aLineIsAPathWithItsParts() throws {
        let item = try #require(try items("photos/2024/fig.jpeg\n").get().items.first)
        #expect(item.base == "")
    }

    @Test func aJSONArrayKeepsItsValueTypes() {
        #expect(
            described(items(#"  ["a", 1, 2.5, true, null, [1, "x"]]"#)) == [
                "a = a", "1 = 1", "2.5 = 2.5", "true = true", " = ", "[1, x] = [1, x]",
            ])
    }

    @Test func mapItemsAreKnownByTheirKeyFieldOrTheirSortedText() {
        #expect(
            described(items(#"[{"name": "x", "size": 1}, {"size": 2, "name": "y"}]"#, key: "name")) == [
                "x = {name: x, size: 1}", "y = {name: y, size: 2}",
            ])
        #expect(described(items(#"[{"b": 1, "a": 2}]"#)) == ["{a: 2, b: 1} = {a: 2, b: 1}"])
    }

    @Test func aDuplicateKeyIsMadeDistinctAndTheItemMarkedADuplicateOfTheFirst() {
        #expect(
            described(items(#"["a", "b", "a", "a#2", "a"]"#)) == [
                "a = a", "b = b", "a#2# = a (duplicate of item 0, key 'a')", "a#2 = a#2",
                "a#4 = a (duplicate of item 0, key 'a')",
            ])
        #expect(described(items("a\nb\nb\n")) == ["a = a", "b = b", "b#2 = b (duplicate of item 1, key 'b')"])
        #expect(
            described(items(#"[{"name": "x", "n": 1}, {"name": "x", "n": 2}]"#, key: "name")) == [
                "x = {n: 1, name: x}", "x#1 = {n: 2, name: x} (duplicate of item 0, key 'x')",
            ])
    }

    @Test func whatIsNotAListIsAProblem() {
        #expect(described(items("[1, 2")).first?.hasPrefix("error: its output is not valid JSON") == true)
        #expect(described(items(#"{"a": [1]}"#)) == ["error: its output is JSON but not a list of items"])
        #expect(
            described(items(#"["x"]"#, key: "name")) == [
                "error: item 0 of the list has no 'name' to be known by: x"
            ])
        #expect(
            described(RunTimeItems.items(of: Data([0x61, 0xff, 0x0a]), keyField: nil)) == [
                "error: its output is neither a JSON array nor lines of text: line 1 is not UTF-8 text"
            ])
    }
}
