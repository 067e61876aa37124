import FlowKitTesting
import Foundation
import TestSupport
import Testing

/// User text that reaches a generated script, a manifest or the terminal: it arrives as data, never as code.
@Suite struct InjectionTests {
    /// A name, a folder and a `--param` that each try to leave their quotes with a newline and run `touch`.
    static let hostile = "x\n$(touch PWNED)\n`touch PWNED2`\nSHARD\nGATHER\n'; touch PWNED3; '"

    /// The exported submit script run with a fake `sbatch` on PATH that keeps each job script it is given: no
    /// command of the workflow's text runs, and each job script, run in turn, hands flowrun its arguments
    /// byte for byte.
    @Test func theSlurmScriptRunsNothingButSbatchWhateverTheNames() async throws {
        let scratch = try Scratch()
        let folder = "w\n$(touch PWNED)"
        let workflow = try scratch.write(
            "\(folder)/flow.yaml",
            """
            version: 1
            name: "x\\n$(touch PWNED)\\nSHARD\\n'; touch PWNED3; '"
            params: { label: plain }
            tasks:
              only: { type: noop }
            """)
        let export = try await Flowrun.runOffPool(
            ["export", "slurm", workflow, "--shards", "2", "--param", "label=\(Self.hostile)"], in: scratch.url)
        #expect(export.status == 0, "\(export.stderr)")
        let submit = try scratch.write("submit.sh", export.stdout)
        let bin = scratch.path("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        // Each job script goes to job-N.sh; the fake prints a job id as `sbatch --parsable` does.
        try scratch.write(
            "bin/sbatch",
            """
            #!/bin/bash
            n=$(ls "\(scratch.path("jobs"))" | wc -l)
            cat > "\(scratch.path("jobs"))/job-$n.sh"
            echo "$((n + 100))"
            """)
        try FileManager.default.createDirectory(atPath: scratch.path("jobs"), withIntermediateDirectories: true)
        // The flowrun the jobs run: prints each argument on a line of its own, NUL-terminated.
        try scratch.write("bin/fake-flowrun", "#!/bin/bash\nprintf '%s\\0' \"$@\"\n")
        for tool in ["sbatch", "fake-flowrun"] { chmod(scratch.path("bin/\(tool)"), 0o755) }
        let path = bin + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try runToEnd(
            "/usr/bin/env", ["-C", scratch.url.path, "PATH=\(path)", "FLOWRUN=\(bin)/fake-flowrun", "bash", submit])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output == "shards: job 100 (array 1-2)\ngather: job 101 (after every shard succeeded)\n")
        let jobs = try FileManager.default.contentsOfDirectory(atPath: scratch.path("jobs")).sorted()
        #expect(jobs == ["job-0.sh", "job-1.sh"])
        var arguments: [[String]] = []
        for job in jobs {
            let ran = try runToEnd(
                "/usr/bin/env",
                [
                    "-C", scratch.url.path, "SLURM_ARRAY_TASK_ID=1", "FLOWRUN=\(bin)/fake-flowrun", "bash",
                    scratch.path("jobs/\(job)"),
                ])
            #expect(ran.status == 0, "\(ran.output)")
            arguments.append(
                ran.output.split(separator: "\0", omittingEmptySubsequences: false).dropLast().map(String.init))
        }
        let state = URL(fileURLWithPath: workflow).deletingLastPathComponent().path + "/.flowrun"
        let common = [workflow, "--param", "label=\(Self.hostile)"]
        let options = ["--state-dir", state, "--no-progress", "--max-concurrent", "1"]
        #expect(
            arguments == [
                common + ["--shard", "1/2"] + options,
                common + ["--gather"] + options + ["--report", state + "/flow.yaml.report.json"],
            ])
        let planted = ["PWNED", "PWNED2", "PWNED3"].filter {
            FileManager.default.fileExists(atPath: scratch.path($0))
                || FileManager.default.fileExists(atPath: scratch.path("jobs/\($0)"))
        }
        #expect(planted.isEmpty, "the script ran text from the workflow: \(planted)")
    }
}

extension InjectionTests {
    /// Paths and values holding Argo's `{{…}}` are refused (Argo would substitute them), and so are a claim and
    /// an image Kubernetes would reject.
    @Test func argoTemplateSyntaxAndBadNamesAreRefused() async throws {
        let scratch = try Scratch()
        let workflow = try scratch.write(
            "w/flow.yaml", "version: 1\nparams: { label: plain }\ntasks:\n  only: { type: noop }\n")
        let templated = try scratch.write("{{workflow.name}}/flow.yaml", "version: 1\ntasks:\n  only: { type: noop }\n")
        let cases: [(arguments: [String], stderr: String)] = [
            (
                [templated, "--image", "flowrun"],
                "error: '/work/{{workflow.name}}/flow.yaml' holds '{{', which Argo reads as its own template syntax: "
                    + "rename the path or change the value\n"
            ),
            (
                [workflow, "--image", "flowrun", "--param", "label={{workflow.uid}}"],
                "error: 'label={{workflow.uid}}' holds '{{', which Argo reads as its own template syntax: "
                    + "rename the path or change the value\n"
            ),
            (
                [workflow, "--image", "flowrun", "--claim", "Bad_Claim!"],
                "Error: --claim must be a Kubernetes object name (lower-case letters, digits, '-' and '.', starting "
                    + "and ending with a letter or digit, at most 253 characters), found 'Bad_Claim!'\n"
            ),
            (
                [workflow, "--image", "flowrun", "--claim", ""],
                "Error: --claim must be a Kubernetes object name (lower-case letters, digits, '-' and '.', starting "
                    + "and ending with a letter or digit, at most 253 characters), found ''\n"
            ),
            (
                [workflow, "--image", ""],
                "Error: --image must be an image reference such as registry.example/team/flowrun:1.2, found ''\n"
            ),
            (
                [workflow, "--image", "Flow Run:{{x}}"],
                "Error: --image must be an image reference such as registry.example/team/flowrun:1.2, found "
                    + "'Flow Run:{{x}}'\n"
            ),
        ]
        for (arguments, stderr) in cases {
            let result = try await Flowrun.runOffPool(
                ["export", "argo"] + arguments + ["--shards", "2", "--root", scratch.url.path], in: scratch.url)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stdout == "", "\(arguments)")
            // A warning may come first (the workflow has no forEach), the usage after.
            #expect(result.stderr.contains(stderr), "\(arguments): \(result.stderr)")
        }
        let sound = try await Flowrun.runOffPool(
            [
                "export", "argo", workflow, "--shards", "2", "--root", scratch.url.path, "--image",
                "registry.example:5000/team/flowrun:1.2", "--claim", "work.flowrun-1",
            ], in: scratch.url)
        #expect(sound.status == 0, "\(sound.stderr)")
    }
}

extension InjectionTests {
    /// Item names, file names and error text with escape sequences: printed to stdout and stderr with the
    /// control characters written as escapes, so none reaches the terminal.
    @Test func controlCharactersNeverReachTheTerminalRaw() async throws {
        let scratch = try Scratch()
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              read: { type: fetch, forEach: ["missing\\e]0;owned\\a.jpg", "gone\\e[2J\\r.jpg"], url: "${item}" }
            """)
        try scratch.write(
            "bad.yaml", "version: 1\ntasks:\n  \"ke\\ey\\u009b2J\": { type: noop, dependsOn: \"\\e[H\" }\n")
        let run = try await Flowrun.runOffPool(["flow.yaml", "--no-progress", "--verbose"], in: scratch.url)
        let validate = try await Flowrun.runOffPool(["validate", "bad.yaml"], in: scratch.url)
        for result in [run, validate] {
            let printed = result.stdout + result.stderr
            let raw = printed.unicodeScalars.filter {
                ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
            }
            #expect(raw.isEmpty, "control characters printed raw: \(raw.map(\.value)) in \(printed.debugDescription)")
        }
        #expect(run.status == 1)
        #expect(validate.status == 2)
        #expect(validate.stderr.contains(#"\u{1b}[H"#), "\(validate.stderr)")
        #expect(run.stdout.contains(#"missing\u{1b}]0;owned\u{7}.jpg"#), "\(run.stdout)")
        #expect(run.stdout.contains(#"gone\u{1b}[2J\r.jpg"#), "\(run.stdout)")
    }

    /// A header name with CR/LF, and a value with one from `${item}`: the node fails naming the header, and no
    /// request carrying the smuggled header reaches the server.
    @Test func headersWithLineBreaksAreRefused() async throws {
        let server = try LocalHTTPServer(["/a": .ok(Data("body".utf8))])
        let scratch = try Scratch()
        try scratch.write(
            "flow.yaml",
            """
            version: 1
            tasks:
              byValue:
                type: fetch
                forEach: ["fine", "x\\r\\nX-Smuggled: value"]
                url: "\(server.urlString("/a"))"
                headers: { X-Tag: "${item}" }
              byName:
                type: fetch
                url: "\(server.urlString("/a"))"
                headers: { "X-A\\r\\nX-Smuggled": "name" }
            """)
        let result = try await Flowrun.runOffPool(["flow.yaml", "--no-progress"], in: scratch.url)
        #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
        #expect(
            result.stdout.contains(
                "byValue[x\\r\\nX-Smuggled: value] failed: the value of header 'X-Tag' holds a carriage return (\\r), which HTTP does not "
                    + "allow in a header"), "\(result.stdout)")
        #expect(
            result.stdout.contains(
                #"byName failed: the header name 'X-A\r\nX-Smuggled' is not an HTTP token"#), "\(result.stdout)")
        #expect(server.requests.count == 1, "\(server.requests.map(\.headers))")
        #expect(server.requests.allSatisfy { $0.header("X-Smuggled") == nil })
    }
}
