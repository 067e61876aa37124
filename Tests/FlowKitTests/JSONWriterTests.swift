import FlowBasics
import FlowKitTesting
import Foundation
import TestSupport
import Testing

@testable import FlowKit

/// The streamed writer behind `--report` and `--trace`: what it writes must read back as the values given,
/// whatever the text holds and however the buffer fills.
@Suite struct JSONWriterTests {
    /// Writes `[values…]` through a stream and reads the file back with `JSONSerialization`.
    private func roundTrip(_ write: (inout JSONWriter) throws -> Void) throws -> [Any] {
        let directory = try TemporaryFolder()
        let path = directory.path + "/out.json"
        var stream = try JSONWriter(path: path)
        try stream.literal("[")
        try write(&stream)
        try stream.literal("]")
        try stream.commit()
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [Any])
    }

    @Test func textReadsBackWhateverItHolds() throws {
        let texts = [
            "", "plain", "quote \" and backslash \\", "line\nbreak\r\ttab", "\u{1}\u{1F} control", "é ü 写真 📷",
            "slash / stays",
        ]
        let values = try roundTrip { stream in
            for (position, text) in texts.enumerated() {
                if position > 0 { try stream.literal(",") }
                try stream.value(text)
            }
        }
        #expect(values.map { $0 as? String } == texts)
    }

    @Test func numbersAndTimesReadBackExactly() throws {
        let integers = [0, 7, -7, 10, 1_000_000, Int.max, Int.min + 1]
        let seconds = [0, 0.5, 1.000001, 12.34, -0.25, 3_600.000_1]
        let values = try roundTrip { stream in
            for number in integers {
                try stream.value(number)
                try stream.literal(",")
            }
            for (position, time) in seconds.enumerated() {
                if position > 0 { try stream.literal(",") }
                try stream.value(seconds: time)
            }
        }
        #expect(values.prefix(integers.count).map { ($0 as? NSNumber)?.intValue } == integers)
        let times = values.dropFirst(integers.count).compactMap { ($0 as? NSNumber)?.doubleValue }
        #expect(times.count == seconds.count)
        for (written, expected) in zip(times, seconds) { #expect(abs(written - expected) < 1e-9) }
    }

    @Test func moreThanTheBufferHoldsIsWrittenWhole() throws {
        // Several flushes, and one value larger than the whole buffer.
        let big = String(repeating: "x", count: 3 << 20)
        let count = 200_000
        let values = try roundTrip { stream in
            for index in 0..<count {
                try stream.value("node[\(index)]")
                try stream.literal(",")
            }
            try stream.value(big)
        }
        #expect(values.count == count + 1)
        #expect(values[count - 1] as? String == "node[\(count - 1)]")
        #expect((values[count] as? String)?.utf8.count == big.utf8.count)
    }

    @Test func anAbandonedStreamLeavesNoFile() throws {
        let directory = try TemporaryFolder()
        let path = directory.path + "/out.json"
        var stream = try JSONWriter(path: path)
        try stream.value("half")
        stream.abandon()
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }
}
