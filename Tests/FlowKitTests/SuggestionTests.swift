import Testing

@testable import FlowKit

/// Did-you-mean: edit distance with a cut-off, candidates from the spot only.
@Suite struct SuggestionTests {
    @Test(arguments: [
        ("kitten", "sitting", 3), ("", "abc", 3), ("abc", "", 3), ("same", "same", 0),
        ("dependOn", "dependsOn", 1), ("flaw", "lawn", 2), ("café", "cafe", 1),
    ])
    func editDistance(_ a: String, _ b: String, _ distance: Int) {
        #expect(Suggestion.editDistance(a, b) == distance)
        #expect(Suggestion.editDistance(b, a) == distance)
    }

    @Test func picksTheClosestPlausibleName() {
        let tasks = ["fetch", "decode", "tone", "thumb", "save"]
        #expect(Suggestion.closest(to: "fecth", in: tasks) == "fetch")
        #expect(Suggestion.closest(to: "decod", in: tasks) == "decode")
        #expect(Suggestion.closest(to: "thumbs", in: tasks) == "thumb")
    }

    @Test func rejectsUnrelatedNames() {
        #expect(Suggestion.closest(to: "upload", in: ["fetch", "decode"]) == nil)
        #expect(Suggestion.closest(to: "urgent", in: ["veryLow", "low", "normal", "high", "veryHigh"]) == nil)
        // Short names are not "corrected" into other short names.
        #expect(Suggestion.closest(to: "x", in: ["a", "b"]) == nil)
        #expect(Suggestion.closest(to: "ab", in: ["cd"]) == nil)
    }

    @Test func caseOnlyDifferencesAreSuggested() {
        #expect(Suggestion.closest(to: "dependson", in: ["dependsOn", "queue"]) == "dependsOn")
        #expect(Suggestion.closest(to: "Fetch", in: ["fetch"]) == "fetch")
    }

    @Test func theExactNameIsNeverSuggested() {
        #expect(Suggestion.closest(to: "fetch", in: ["fetch"]) == nil)
    }

    @Test func tiesAreBrokenAlphabeticallyWhateverTheOrder() {
        #expect(Suggestion.closest(to: "ab", in: ["ac", "aa"]) == "aa")
        #expect(Suggestion.closest(to: "ab", in: ["aa", "ac"]) == "aa")
        let environment = ["API_TOKA": "", "API_TOKB": "", "HOME": ""]
        #expect(Suggestion.closest(to: "API_TOKEN", in: environment.keys) == "API_TOKA")
    }
}
