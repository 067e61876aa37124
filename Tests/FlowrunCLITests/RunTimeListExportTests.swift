import Foundation
import TestSupport
import Testing

/// `flowrun export slurm|argo` of a workflow whose list is made at run time: the lists step runs first, the
/// shards after it, then the gather — as goldens, against Argo's schema, replayed locally, and submitted to a fake
/// `sbatch` that keeps each job.
@Suite struct RunTimeListExportTests {
    static let goldens = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
    }

    private func export(_ arguments: [String]) async throws -> Flowrun.Result {
        let workflow = try RunTimeListShardTests.writeFlow(in: scratch)
        return try await Child.runFlowrun(
            ["export"] + arguments.prefix(1) + [workflow] + arguments.dropFirst(), in: scratch.url)
    }

    @Test func theArgoManifestRunsTheListsStepBeforeTheShardsAndValidates() async throws {
        let yaml = try await export([
            "argo", "--shards", "3", "--image", "ghcr.io/example/flowrun:1", "--root", scratch.url.path,
        ])
        #expect(yaml.status == 0, "\(yaml.stderr)")
        #expect(yaml.stderr.isEmpty, "\(yaml.stderr)")
        let golden = Self.goldens.appendingPathComponent("argo-runtime-list.yaml")
        #expect(yaml.stdout == (try Golden.expected(for: yaml.stdout, at: golden)))

        try yaml.stdout.write(toFile: scratch.path("workflow.yaml"), atomically: true, encoding: .utf8)
        let check = try await ArgoExportTests.pythonOffPool(
            """
            import json, sys, yaml, jsonschema
            schema = json.load(open(sys.argv[1]))
            errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(yaml.safe_load(open(sys.argv[2]))), key=str)
            print("\\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors))
            sys.exit(1 if errors else 0)
            """, [ArgoExportTests.schema.path, scratch.path("workflow.yaml")])
        #expect(!check.output.contains("ModuleNotFoundError"), "apt-get install python3-jsonschema python3-yaml")
        #expect(check.status == 0, "\(check.output)")
    }

    /// The DAG run as local processes in dependency order: the lists step, three shards, the gather — every item
    /// once, the producer once, the gather's input in list order.
    @Test func replayingTheArgoDAGLocallyRunsEveryItemOnce() async throws {
        let exported = try await export([
            "argo", "--shards", "3", "--image", "unused", "--format", "json", "--mount", scratch.url.path,
            "--root", scratch.url.path, "--binary", Flowrun.binary.path,
        ])
        #expect(exported.status == 0, "\(exported.stderr)")
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        let commands = try ArgoExportTests.replayOrder(of: manifest)
        #expect(commands.map { $0.dropFirst(2).first } == ["--lists", "--shard", "--shard", "--shard", "--gather"])
        for command in commands {
            let result = try await offPool { try runToEnd(command[0], Array(command.dropFirst())) }
            #expect(result.status == 0, "\(command.joined(separator: " ")): \(result.output)")
        }
        #expect(try lines("produced.txt") == ["ran"])
        #expect(try lines("ran.txt").sorted() == RunTimeListShardTests.items.sorted())
        #expect(try lines("all.txt") == RunTimeListShardTests.items)
    }

    @Test func theSlurmScriptSubmitsTheListsJobThenTheShardsAfterItThenTheGather() async throws {
        let export = try await export(["slurm", "--shards", "3"])
        #expect(export.status == 0, "\(export.stderr)")
        // The script names the scratch folder and the built flowrun, which differ from machine to machine.
        let script = export.stdout.replacingOccurrences(of: scratch.url.path, with: "/SCRATCH")
            .replacingOccurrences(of: Flowrun.binary.path, with: "/FLOWRUN")
        let golden = Self.goldens.appendingPathComponent("slurm-runtime-list.sh")
        #expect(script == (try Golden.expected(for: script, at: golden)))

        // A fake sbatch keeps each job script and its options, and prints a job id as `sbatch --parsable` does.
        let submit = try scratch.write("submit.sh", export.stdout)
        try FileManager.default.createDirectory(atPath: scratch.path("jobs"), withIntermediateDirectories: true)
        try scratch.write(
            "bin/sbatch",
            """
            #!/bin/bash
            n=$(ls "\(scratch.path("jobs"))" | grep -c '\\.sh$')
            cat > "\(scratch.path("jobs"))/job-$n.sh"
            printf '%s\\n' "$@" | grep -e '--dependency' -e '--array' > "\(scratch.path("jobs"))/job-$n.options"
            echo "$((n + 100))"
            """)
        chmod(scratch.path("bin/sbatch"), 0o755)
        let path = scratch.path("bin") + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let run = try runToEnd("/usr/bin/env", ["-C", scratch.url.path, "PATH=\(path)", "bash", submit])
        #expect(run.status == 0, "\(run.output)")
        #expect(
            run.output
                == "lists: job 100\nshards: job 101 (array 1-3)\ngather: job 102 (after every shard succeeded)\n")
        let options = try (0...2).map {
            try String(contentsOfFile: scratch.path("jobs/job-\($0).options"), encoding: .utf8)
        }
        #expect(options == ["", "--dependency=afterok:100\n--array=1-3\n", "--dependency=afterok:101\n"])
        let lists = try String(contentsOfFile: scratch.path("jobs/job-0.sh"), encoding: .utf8)
        #expect(lists.contains(" --lists --state-dir "), "\(lists)")
    }

    /// A producer the store never reuses is run again by every shard: the export says so.
    @Test(arguments: ["slurm", "argo"])
    func aProducerTheStoreDoesNotReuseIsWarnedAbout(format: String) async throws {
        let workflow = try RunTimeListShardTests.writeFlow(in: scratch, cache: false)
        let result = try await Child.runFlowrun(
            ["export", format, workflow, "--shards", "2"] + (format == "argo" ? ["--image", "flowrun:1"] : []),
            in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stderr
                == "warning: task 'list' makes a list at run time but the store does not reuse its result (a command needs `cache: true`): every shard runs it again instead of replaying the lists job's list, so it must print the same list on every machine\n"
        )
    }

    private func lines(_ name: String) throws -> [String] {
        try String(contentsOfFile: scratch.path(name), encoding: .utf8).split(separator: "\n").map(String.init)
    }
}
