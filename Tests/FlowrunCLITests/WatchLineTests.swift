import Foundation
import TestSupport
import Testing

/// `--watch`'s run lines through the binary: real colour on a terminal (a pty made by `script`), none in a pipe
/// or with `NO_COLOR`; a failed run names each failure and its cause below its line.
@Suite struct WatchLineTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            name: mirror
            tasks:
              read: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
              decode: { type: decode, dependsOn: read }
              save: { type: write, path: "out/${item.stem}.png", dependsOn: decode }

            """)
        try scratch.write("photos/a.jpg", try Fixtures.photo("wine"))
        try scratch.write("photos/b.jpg", "not a JPEG")
    }

    static let arguments = ["flow.yaml", "--watch", "--watch-runs", "1", "--no-progress", "--no-cache"]

    /// Runs the watch for one run on a pty: `script -qfc` gives flowrun a terminal for stdout and stderr.
    /// - Parameter noColor: Whether `NO_COLOR` is set (it is removed otherwise: the test runner may set it).
    func onATerminal(noColor: Bool = false) async throws -> String {
        let environment = noColor ? ["env", "NO_COLOR=1"] : ["env", "-u", "NO_COLOR"]
        let command = (environment + [Flowrun.binary.path] + Self.arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "script is missing (Debian: bsdutils)")
        let child = try Child(
            executable: URL(fileURLWithPath: script), ["-qefc", command, "/dev/null"], in: scratch.url,
            environment: ["TERM": "xterm"])
        let result = try #require(await child.wait(), "the watch did not end")
        #expect(result.status == 1, "\(result.stdout)")
        return normalized(result.stdout.replacingOccurrences(of: "\r\n", with: "\n"))
    }

    /// The escapes written visibly (`ESC`), the times and durations replaced.
    func normalized(_ text: String) -> String {
        CILogTests.normalized(text, scratch: scratch)
            .replacingOccurrences(of: #"\[[0-9]{2}:[0-9]{2}:[0-9]{2}\]"#, with: "[TIME]", options: .regularExpression)
            .replacingOccurrences(of: "\u{1B}", with: "ESC")
    }

    @Test func onATerminalTheRunLineIsPaintedAndNamesEachFailure() async throws {
        let text = try await onATerminal()
        #expect(text == (try Golden.expected(for: text, at: CILogTests.golden("watch-line-tty.txt"))))
    }

    @Test func withNoColorOrInAPipeTheRunLineIsPlain() async throws {
        let noColor = try await onATerminal(noColor: true)
        let piped = try #require(await Child.flowrun(Self.arguments, in: scratch.url).wait())
        #expect(piped.status == 1)
        #expect(normalized(piped.stdout) == noColor)
        #expect(noColor == (try Golden.expected(for: noColor, at: CILogTests.golden("watch-line-plain.txt"))))
    }
}
