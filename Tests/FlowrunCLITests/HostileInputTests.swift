import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Numbers, files and imports that used to crash flowrun, hang it or fill its memory: each is refused with a
/// located error, in bounded time.
@Suite struct HostileInputTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// Runs flowrun and fails the test if it has not ended within 60 s (a hang) or died of a signal (a trap).
    private func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        let child = try Child.flowrun(arguments, in: scratch.url)
        let result = try #require(await child.wait(), "flowrun \(arguments) did not finish: it hangs")
        #expect(!result.terminatedBySignal, "flowrun \(arguments) crashed: \(result.stderr)")
        return result
    }

    /// Durations past the clocks' range, byte limits past what memory holds and a `--max-concurrent` past the
    /// thread budget: a diagnostic with the YAML's line and column, or the option's name, never signal 4.
    @Test func numbersPastTheirRangeAreDiagnosedNotTrapped() async throws {
        try scratch.write(
            "numbers.yaml",
            """
            version: 1
            tasks:
              nap: { type: sleep, duration: 9223372036854775807ms }
              long: { type: sleep, duration: 99999999999999999999s }
              slow: { type: noop, timeout: 9223372036854775807h }
              numeric: { type: sleep, duration: 1e300 }
              big: { type: fetch, url: in.txt, maxBytes: 9223372036854775807 }
              loud: { type: command, argv: [echo], maxOutputBytes: 9223372036854775807 }
            """)
        let numbers = try await flowrun(["validate", "numbers.yaml"])
        #expect(numbers.status == 2)
        let durationRule = "must be a duration such as 250ms, 20s or 2m, at most 8760h"
        let expected: [String] = [
            "numbers.yaml:3:33: error: parameter 'duration' of task 'nap' (sleep) \(durationRule), found a string "
                + "('9223372036854775807ms')",
            "numbers.yaml:4:34: error: parameter 'duration' of task 'long' (sleep) \(durationRule), found a string "
                + "('99999999999999999999s')",
            "numbers.yaml:5:32: error: 'timeout' must be at most 8760h (a year), found '9223372036854775807h'",
            "numbers.yaml:6:37: error: parameter 'duration' of task 'numeric' (sleep) \(durationRule), found a number "
                + "('1e+300')",
            "numbers.yaml:7:46: error: parameter 'maxBytes' of task 'big' (fetch) must be between 1 and 17179869184, "
                + "found 9223372036854775807",
            "numbers.yaml:8:56: error: parameter 'maxOutputBytes' of task 'loud' (command) must be between 0 and "
                + "17179869184, found 9223372036854775807",
        ]
        let located = numbers.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("numbers.yaml:") }
        #expect(located == expected, "\(numbers.stderr)")
        try scratch.write("ok.yaml", "version: 1\ntasks:\n  only: { type: noop }\n")
        for count in ["9223372036854775807", "10001"] {
            let option = try await flowrun(["ok.yaml", "--max-concurrent", count])
            #expect(option.status == 2)
            #expect(
                option.stderr.contains("--max-concurrent must be from 1 to 10000, found \(count)"), "\(option.stderr)")
        }
    }

    /// The workflow, a `uses:` target, a `forEach` list and an `--env-file` that are a folder, a FIFO (no writer:
    /// reading it blocks forever), `/dev/zero` (endless) or a sparse gigabyte: each is refused at once with its
    /// real cause, and nothing is read whole.
    @Test func definitionFilesThatAreNotSmallRegularFilesAreRefusedWithTheirCause() async throws {
        try FileManager.default.createDirectory(atPath: scratch.path("folder"), withIntermediateDirectories: true)
        #expect(mkfifo(scratch.path("fifo"), 0o600) == 0)
        let sparse = try #require(FileHandle(forWritingAtPath: try scratch.write("sparse", "")))
        try sparse.truncate(atOffset: 1 << 30)
        try sparse.close()
        let causes = [
            ("folder", "it is a folder, not a file"), ("fifo", "it is a FIFO, not a regular file"),
            ("/dev/zero", "it is a character device, not a regular file"),
            ("sparse", "it is 1073741824 bytes, more than the limit of 16777216 bytes"),
        ]
        for (file, cause) in causes {
            let workflow = try await flowrun(["validate", file])
            #expect(workflow.status == 2)
            #expect(
                workflow.stderr.hasPrefix("error: cannot read workflow '\(file)': \(cause)\n"), "\(workflow.stderr)")

            try scratch.write("uses.yaml", "version: 1\ntasks:\n  part: { uses: \(file) }\n")
            let uses = try await flowrun(["validate", "uses.yaml"])
            #expect(uses.status == 2)
            #expect(
                uses.stderr.hasPrefix("uses.yaml:3:17: error: cannot read pipeline '\(file)': \(cause)\n"),
                "\(uses.stderr)")

            try scratch.write("env.yaml", "version: 1\ntasks:\n  only: { type: noop }\n")
            let env = try await flowrun(["validate", "env.yaml", "--env-file", file])
            #expect(env.status == 2)
            #expect(env.stderr.hasPrefix("error: cannot read env file '\(file)': \(cause)\n"), "\(env.stderr)")
        }
        try scratch.write("list.yaml", "version: 1\ntasks:\n  each: { type: noop, forEach: { file: /dev/zero } }\n")
        let list = try await flowrun(["validate", "list.yaml"])
        #expect(list.status == 2)
        #expect(
            list.stderr.hasPrefix(
                "list.yaml:3:40: error: cannot read the forEach file '/dev/zero': it is a character device, not a "
                    + "regular file\n"), "\(list.stderr)")
    }

    /// An `overlay` file that is a folder, a FIFO (no writer: reading it blocked the node forever) or `/dev/zero`
    /// fails its node saying what the file is, at once.
    @Test func anOverlayThatIsNotARegularFileFailsSayingWhatItIs() async throws {
        try Fixtures.photo("wine").write(to: URL(fileURLWithPath: scratch.path("in.jpg")))
        try FileManager.default.createDirectory(atPath: scratch.path("folder"), withIntermediateDirectories: true)
        #expect(mkfifo(scratch.path("fifo"), 0o600) == 0)
        for (file, cause) in [
            ("folder", "it is a folder, not a file"), ("fifo", "it is a FIFO, not a regular file"),
            ("/dev/zero", "it is a character device, not a regular file"),
        ] {
            try scratch.write(
                "mark.yaml",
                """
                version: 1
                tasks:
                  read: { type: fetch, url: in.jpg }
                  decode: { type: decode, dependsOn: read }
                  mark: { type: overlay, path: "\(file)", dependsOn: decode }
                """)
            let run = try await flowrun(["mark.yaml", "--no-progress", "--no-cache"])
            #expect(run.status == 1)
            #expect(
                run.stdout.split(separator: "\n").filter { $0.contains(": error: ") } == [
                    "mark.yaml:5:3: error: mark failed: cannot read overlay '\(file)': \(cause)"
                ], "\(run.stdout)")
        }
    }

    /// Thirteen small pipelines, each importing the next ten times, would be 10¹³ tasks: validation stops at the
    /// limit, in bounded time, naming the chain of imports. The bound is a time limit on the test, not a timed
    /// expectation: without the limit the expansion would never end, while a busy machine only makes it slower.
    @Test(.timeLimit(.minutes(10))) func importsThatMultiplyStopAtTheLimitWithTheirChain() async throws {
        for level in 0..<13 {
            let next =
                level == 12
                ? "  leaf: { type: noop }\n" : (0..<10).map { "  p\($0): { uses: p\(level + 1).yaml }\n" }.joined()
            try scratch.write("p\(level).yaml", "version: 1\ntasks:\n" + next)
        }
        let result = try await flowrun(["validate", "p0.yaml"])
        #expect(result.status == 2)
        let first = result.stderr.split(separator: "\n").first.map(String.init) ?? ""
        #expect(
            first
                == "p11.yaml:6:15: error: the imports of this workflow number more than 10000, the limit: stopped at "
                + (0...12).map { "p\($0).yaml" }.joined(separator: " → "), "\(result.stderr.prefix(2_000))")
    }

    /// A command's `argv` and `env` reach the program as written: `1.10`, `007`, `1.0`, a 22-digit number and
    /// `null` are text to a program, not numbers to reformat.
    @Test func commandArgumentsAndEnvironmentAreTheTextAsWritten() async throws {
        try scratch.write(
            "argv.yaml",
            """
            version: 1
            tasks:
              show:
                type: command
                argv: [sh, -c, 'printf "%s|" "$@" "$V" "$W" > out.txt', sh, 1.10, 007, 1.0, 1234567890123456789012, null, true]
                env: { V: 1.10, W: 0x1F }
            """)
        let result = try await flowrun(["argv.yaml", "--no-progress"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            try String(contentsOfFile: scratch.path("out.txt"), encoding: .utf8)
                == "1.10|007|1.0|1234567890123456789012|null|true|1.10|0x1F|")
    }

    /// A program writing standard error without end keeps flowrun's memory flat: only a tail is kept, and the
    /// failure quotes it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time"), "needs /usr/bin/time"))
    func endlessStandardErrorKeepsMemoryFlat() async throws {
        try scratch.write(
            "noisy.yaml",
            """
            version: 1
            tasks:
              noisy: { type: command, argv: [sh, -c, 'head -c 400000000 /dev/zero | tr "\\0" x >&2; exit 3'] }
            """)
        let child = try Child.measuredFlowrun(["noisy.yaml", "--no-progress"], in: scratch.url)
        let result = try #require(await child.wait(timeout: .seconds(600)), "flowrun did not finish")
        #expect(result.status == 1, "\(result.stderr.suffix(500))")
        #expect(
            result.stdout.contains("noisy failed: 'sh' exited with status 3: …xxxx"), "\(result.stdout.prefix(500))")
        let measured = try #require(Measured(result))
        #expect(measured.peakKB < 150_000, "peak RSS \(measured.peakKB) KB for 400 MB of stderr")
    }
}
