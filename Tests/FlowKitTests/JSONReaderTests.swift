import FlowBasics
import Foundation
import Testing

@testable import FlowKit

/// The JSON lists a producer prints: values as `JSONDecoder` would give them, and each fault named.
@Suite struct JSONReaderTests {
    private func read(_ text: String, maxItems: Int = 100) -> Result<[JSONValue], JSONReader.Fault> {
        JSONReader.list(Data(text.utf8), maxItems: maxItems) { RunTimeItems.overLimit(at: $0, limit: maxItems) }
    }

    @Test func valuesAreReadAsJSONDecoderReadsThem() throws {
        let text =
            #"[1, -0, 2.5, -1e2, "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00", true, false, null, [], {}, {"k": [1, {"n": "v"}]}]"#
        let read = try read(text).get()
        #expect(
            read == [
                .integer(1), .integer(0), .number(2.5), .number(-100), .string("a\"\\/\u{8}\u{c}\n\r\té😀"),
                .bool(true), .bool(false), .null, .list([]), .map([:]), ["k": [1, ["n": "v"]]],
            ])
        #expect(try self.read(" [ ] \n").get() == [])
    }

    @Test(arguments: [
        ("[01]", "its output is not valid JSON: a number does not start with 0 at byte 3"),
        ("[1,]", "its output is not valid JSON: unexpected character ']' at byte 3"),
        ("[1] x", "its output is not valid JSON: unexpected text after the end of the list at byte 4"),
        (
            "[\"a\u{1}\"]",
            "its output is not valid JSON: a string holds a control character (byte 1); write it escaped at byte 3"
        ),
        (
            #"["\ud800"]"#,
            "its output is not valid JSON: a \\u escape of a high surrogate is not followed by its low surrogate at byte 8"
        ),
        (#"{"a": 1}"#, "its output is JSON but not a list of items"),
        ("[1, 2, 3]", "it has more than 2 items (the one at byte 7 is item 3); the limit is 2"),
        (
            "[-9223372036854775809]",
            "the integer -9223372036854775809 at byte 1 does not fit in 64 bits; write it as a string (in quotes) to keep every digit"
        ),
    ])
    func faultsAreNamed(text: String, message: String) {
        guard case .failure(let fault) = read(text, maxItems: text == "[1, 2, 3]" ? 2 : 100) else {
            Issue.record("\(text) was read")
            return
        }
        #expect(fault.message == message)
    }
}
