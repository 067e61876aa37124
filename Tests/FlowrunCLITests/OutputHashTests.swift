import Foundation
import Testing

/// `${output.hash}` in a `write`'s path: the file is named by the SHA-256 of its bytes, through the built binary.
@Suite struct OutputHashTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        try scratch.write("in/a.txt", "item a\n")
        try scratch.write(
            "hash.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${item.stem}-${output.hash}.txt", dependsOn: read }
              list: { type: command, gather: true, dependsOn: save, argv: [sh, -c, 'echo "$@" > list.txt', sh, "${inputs}"] }
            """)
    }

    func flowrun(_ arguments: [String]) async throws -> Flowrun.Result {
        var result = try await Child.runFlowrun(arguments, in: scratch.url)
        result.stdout = result.stdout.replacingOccurrences(of: scratch.url.path + "/", with: "")
        result.stderr = result.stderr.replacingOccurrences(of: scratch.url.path + "/", with: "")
        return result
    }

    /// What the gather `command` was given as `${inputs}`.
    func listed() -> String? { try? String(contentsOfFile: scratch.path("list.txt"), encoding: .utf8) }

    func written() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: scratch.path("out")).sorted()
    }

    /// The name `a-${output.hash:digits}.txt` takes for `text`, its digest from `sha256sum`, not from flowrun.
    static func name(of text: String, digits: Int = 8) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return "a-\(printed.prefix(digits)).txt"
    }

    @Test func namesTheFileByItsBytesAndKeepsItOnAnUnchangedRerun() async throws {
        let first = try await flowrun(["hash.yaml", "--no-progress"])
        #expect(first.status == 0, "\(first.stderr)")
        let name = try Self.name(of: "item a\n")
        #expect(try written() == [name])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.path("out/" + name)))
        #expect(try Self.name(of: String(decoding: bytes, as: UTF8.self)) == name, "the name is the file's own digest")
        #expect(listed() == "out/\(name)\n", "the gather's ${inputs} sees the hashed name")
        let rerun = try await flowrun(["hash.yaml", "--no-progress"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("3 nodes: 1 succeeded, 2 cached"), "\(rerun.stdout)")
        #expect(try written() == [name])
    }

    @Test func changedContentWritesANewNameAndCleanRemovesTheOldOne() async throws {
        #expect(try await flowrun(["hash.yaml", "--no-progress"]).status == 0)
        let old = try Self.name(of: "item a\n")
        try scratch.write("in/a.txt", "item a, edited\n")
        let second = try await flowrun(["hash.yaml", "--no-progress"])
        #expect(second.status == 0, "\(second.stderr)")
        let new = try Self.name(of: "item a, edited\n")
        #expect(try written() == [old, new].sorted())
        #expect(listed() == "out/\(new)\n")
        let clean = try await flowrun(["clean", "--stale", "hash.yaml"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(
            clean.stdout == """
                removed out/\(old) (written by save[in/a.txt])
                removed 1 file; left 0 files

                """)
        #expect(try written() == [new])
        let rerun = try await flowrun(["hash.yaml", "--no-progress"])
        #expect(rerun.stdout.contains("3 nodes: 1 succeeded, 2 cached"), "\(rerun.stdout)")
    }

    @Test func aDryRunShowsThePlaceholder() async throws {
        let dryRun = try await flowrun(["hash.yaml", "--dry-run", "--no-progress"])
        #expect(dryRun.status == 0, "\(dryRun.stderr)")
        #expect(try !FileManager.default.fileExists(atPath: scratch.path("out")))
        #expect(!dryRun.stdout.contains(try Self.name(of: "item a\n")), "\(dryRun.stdout)")
    }

    @Test func aBadCountAndAUseOutsideAWriteArePlacedErrors() async throws {
        try scratch.write(
            "bad.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: "in/a.txt" }
              save: { type: write, path: "out/a-${output.hash:3}.txt", dependsOn: read }
              echo: { type: command, argv: [echo, "${output.hash}"] }
            """)
        let result = try await flowrun(["validate", "bad.yaml"])
        #expect(result.status != 0)
        #expect(
            result.stderr == """
                bad.yaml:4:37: error: '${output.hash:3}' asks for '3' hex digits of the content's SHA-256
                 4 |   save: { type: write, path: "out/a-${output.hash:3}.txt", dependsOn: read }
                   |                                     ^
                    hint: give a count from 4 to 64, as ${output.hash:12}, or ${output.hash} for 8
                bad.yaml:5:40: error: '${output.hash}' is only known to a 'write' task, in its 'path'
                 5 |   echo: { type: command, argv: [echo, "${output.hash}"] }
                   |                                        ^
                    hint: the hash is of the bytes a write encodes, which name the file it writes
                2 errors in bad.yaml; nothing was run

                """)
    }

    @Test func anObjectInABucketIsRefusedWhenValidating() async throws {
        try scratch.write(
            "bucket.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, url: "in/a.txt" }
              save: { type: write, path: "s3://bucket/a-${output.hash}.txt", dependsOn: read }
            """)
        let result = try await flowrun(["validate", "bucket.yaml"])
        #expect(result.status == 2)
        #expect(
            result.stderr == """
                bucket.yaml:4:30: error: write's '${output.hash}' cannot name an object in a bucket
                 4 |   save: { type: write, path: "s3://bucket/a-${output.hash}.txt", dependsOn: read }
                   |                              ^
                    hint: write the object under a fixed key, or write a local file named by its content
                1 error in bucket.yaml; nothing was run

                """)
    }

    @Test func twoItemsOfTheSameBytesCollideWhenTheyRunNamingBoth() async throws {
        try scratch.write("in/b.txt", "item a\n")
        try scratch.write(
            "same.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
              save: { type: write, path: "out/${output.hash}.txt", dependsOn: read }
            """)
        let result = try await flowrun(["same.yaml", "--no-progress"])
        #expect(result.status == 1)
        let name = String(try Self.name(of: "item a\n").dropFirst(2))
        // Which of the two writes first depends on the run; the failure names both.
        let output = result.stdout + result.stderr
        #expect(output.contains("refusing to replace 'out/\(name)', which 'save[in/"), "\(output)")
        #expect(output.contains("save[in/a.txt]") && output.contains("save[in/b.txt]"), "\(output)")
        #expect(try written() == [name])
    }
}
