import FlowBasics
import Foundation
import Testing

@testable import FlowKit

/// Documents built in memory (the schema, graphs, manifests, probed facts) are written by the same writer as the
/// report: one escaper, one number form, and a pretty layout.
@Suite struct JSONValueTests {
    static let document: JSONValue = [
        "name": "say \"hi\"\n", "count": 3, "ratio": 0.25, "whole": 2.0, "none": .null, "flag": true,
        "list": [1, "two", []], "map": ["b": 1, "a": [:]], "empty": [],
    ]

    @Test func compactKeepsTheKeysInTheOrderGiven() {
        #expect(
            String(decoding: Self.document.json(), as: UTF8.self)
                == #"{"name":"say \"hi\"\n","count":3,"ratio":0.25,"whole":2,"none":null,"flag":true,"#
                + #""list":[1,"two",[]],"map":{"b":1,"a":{}},"empty":[]}"#)
    }

    @Test func prettyIndentsByTwoSpacesWithSortedKeysWhenAsked() {
        #expect(
            String(decoding: Self.document.sortingKeys().json(pretty: true), as: UTF8.self) == """
                {
                  "count": 3,
                  "empty": [],
                  "flag": true,
                  "list": [
                    1,
                    "two",
                    []
                  ],
                  "map": {
                    "a": {},
                    "b": 1
                  },
                  "name": "say \\"hi\\"\\n",
                  "none": null,
                  "ratio": 0.25,
                  "whole": 2
                }
                """)
    }

    @Test func numbersThatAreNotFiniteAreNull() {
        let numbers: JSONValue = [.number(.nan), .number(.infinity), .number(-1e300), .number(1e16), .number(-0.5)]
        #expect(String(decoding: numbers.json(), as: UTF8.self) == "[null,null,-1e+300,1e+16,-0.5]")
    }

    /// The YAML-safe rule also escapes DEL, the C1 controls and the line and paragraph separators; the JSON rule
    /// (store keys) leaves them as they are.
    @Test func escapingTheBreaksYAMLKnowsIsAChoice() {
        let text = "a\u{7F}b\u{85}c\u{9B}d\u{2028}e\u{2029}f\u{1B}g é\u{A0}写"
        #expect(
            String(decoding: JSONWriter.quoted(text, escaping: .controlsAndBreaks), as: UTF8.self)
                == #""a\u007fb\u0085c\u009bd\u2028e\u2029f\u001bg é"# + "\u{A0}写\"")
        #expect(
            String(decoding: JSONWriter.quoted(text), as: UTF8.self)
                == "\"a\u{7F}b\u{85}c\u{9B}d\u{2028}e\u{2029}f\\u001bg é\u{A0}写\"")
        let document: JSONValue = ["k\u{85}": .string(text)]
        #expect(
            String(decoding: document.json(escaping: .controlsAndBreaks), as: UTF8.self)
                == #"{"k\u0085":"a\u007fb\u0085c\u009bd\u2028e\u2029f\u001bg é"# + "\u{A0}写\"}")
    }

    @Test func whatIsWrittenReadsBackAsTheSameDocument() throws {
        let text = String(decoding: Self.document.json(), as: UTF8.self)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        var expected = Self.document
        expected["whole"] = 2  // written as `2`, so it reads back as an integer
        #expect(decoded.sortingKeys() == expected.sortingKeys())
        #expect(
            try JSONDecoder().decode(JSONValue.self, from: Data("[1.5, 1e30, -4, false]".utf8)) == [
                1.5, 1e30, -4, false,
            ])
    }

    @Test func settingAKeyAddsItLastOrReplacesIt() {
        var map: JSONValue = ["a": 1]
        map["b"] = "two"
        map["a"] = nil
        map["c"] = [:]
        #expect(map == ["b": "two", "c": [:]])
        var scalar: JSONValue = 1
        scalar["a"] = 2
        #expect(scalar == 1)
    }
}
