import Testing

@testable import FlowKit

/// Splitting `${…}` references out of text, with their columns.
@Suite struct InterpolationTests {
    private let start = SourceLocation(path: "w.yaml", line: 3, column: 10)

    private func parse(_ text: String) -> (Interpolation, Diagnostics) {
        var diagnostics = Diagnostics()
        let interpolation = Interpolation(parsing: text, at: start, diagnostics: &diagnostics)
        return (interpolation, diagnostics)
    }

    @Test func textWithoutReferencesIsOneSegment() {
        let (interpolation, diagnostics) = parse("plain text $ { }")
        #expect(interpolation.references.isEmpty)
        #expect(interpolation.wholeReference == nil)
        #expect(diagnostics.all.isEmpty)
    }

    @Test(arguments: [
        ("${params.outDir}", Reference.param("outDir")),
        ("${item}", .item),
        ("${item.index}", .itemIndex),
        ("${item.stem}", .itemPart(.stem)),
        ("${item.rel}", .itemPart(.rel)),
        ("${item.dir}", .itemPart(.dir)),
        ("${item.name}", .itemPart(.name)),
        ("${item.title}", .itemKey("title")),
        ("${env.HOME}", .env("HOME")),
        ("${ params.spaced }", .param("spaced")),
    ])
    func wholeReferences(_ text: String, _ expected: Reference) throws {
        let (interpolation, diagnostics) = parse(text)
        let (reference, location) = try #require(interpolation.wholeReference)
        #expect(reference == expected)
        #expect(location == start)
        #expect(diagnostics.all.isEmpty)
    }

    @Test func referencesInsideTextAreLocatedByColumn() {
        let (interpolation, diagnostics) = parse("${params.outDir}/${item.stem}.jpg")
        #expect(interpolation.wholeReference == nil)
        #expect(interpolation.references.map(\.0) == [.param("outDir"), .itemPart(.stem)])
        #expect(interpolation.references.map(\.1.column) == [10, 27])
        #expect(diagnostics.all.isEmpty)
    }

    @Test func columnsCountUnicodeScalars() {
        // "é" is two bytes in UTF-8 but one column.
        let (interpolation, _) = parse("café/${item}")
        #expect(interpolation.references.first?.1.column == start.column + 5)
    }

    @Test func doubleDollarIsALiteral() {
        let (interpolation, diagnostics) = parse("cost: $${params.x} and ${item}")
        #expect(interpolation.references.map(\.0) == [.item])
        guard case .text(let literal) = interpolation.segments.first else {
            Issue.record("expected text first")
            return
        }
        #expect(literal == "cost: ${params.x} and ")
        #expect(diagnostics.all.isEmpty)
    }

    @Test func unterminatedReferenceIsReportedAtTheDollar() {
        let (_, diagnostics) = parse("a/${params.x")
        #expect(diagnostics.all.map(\.message) == ["unterminated '${' in 'a/${params.x'"])
        #expect(diagnostics.all.first?.location?.column == start.column + 2)
    }

    @Test(arguments: [
        "${foo}", "${}", "${params}", "${params.}", "${item.}", "${env}", "${params.a.b}", "${params.a b}",
    ])
    func malformedReferencesAreReported(_ text: String) {
        let (interpolation, diagnostics) = parse(text)
        #expect(interpolation.references.isEmpty)
        #expect(diagnostics.all.count == 1)
        #expect(diagnostics.all.first?.message.hasPrefix("unknown reference") == true)
        #expect(diagnostics.all.first?.hint?.contains("${params.NAME}") == true)
    }

    @Test func quotedScalarsStartOneColumnLater() throws {
        let result = TestTasks.load(
            """
            version: 1
            tasks:
              fetch: { type: fetch, url: "x/${params.nope}" }
            """)
        let diagnostic = try #require(result.diagnostics.all.first)
        #expect(diagnostic.message == "unknown parameter '${params.nope}'")
        #expect(diagnostic.location == SourceLocation(path: "test.yaml", line: 3, column: 33))
    }
}
