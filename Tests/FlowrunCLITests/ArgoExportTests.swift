import FlowKit
import Foundation
import TestSupport
import Testing

@testable import FlowrunCLI

/// `flowrun export argo`: Argo's own JSON Schema, the reference check, a golden manifest, and a replay of the DAG
/// as local processes compared with a local run.
@Suite(.serialized) struct ArgoExportTests {
    /// Argo's published schema, kept in the repository with its licence (`ArgoSchema/README.md`).
    static let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "ArgoSchema/schema.json")
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Goldens/argo-thumbs.yaml")
    static let bucketGolden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "Goldens/argo-thumbs-bucket.yaml")

    /// Runs python3 with a script and arguments; returns its exit status and output.
    static func pythonOffPool(_ script: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await offPool { try python(script, arguments) }
    }

    static func python(_ script: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runToEnd("/usr/bin/python3", ["-c", script] + arguments)
    }

    private func export(_ scratch: Scratch, _ extra: [String]) async throws -> Flowrun.Result {
        let workflow = try ShardCommandTests.thumbnails(in: scratch)
        return try await Flowrun.runOffPool(
            ["export", "argo", workflow, "--shards", "3", "--image", "ghcr.io/example/flowrun:1"] + extra,
            in: scratch.url)
    }

    @Test func theManifestValidatesAgainstArgosSchemaInYAMLAndJSON() async throws {
        let scratch = try Scratch()
        let yaml = try await export(scratch, [])
        #expect(yaml.status == 0, "\(yaml.stderr)")
        try yaml.stdout.write(toFile: scratch.path("workflow.yaml"), atomically: true, encoding: .utf8)
        let json = try await export(scratch, ["--format", "json"])
        try json.stdout.write(toFile: scratch.path("workflow.json"), atomically: true, encoding: .utf8)
        let check = try await Self.pythonOffPool(
            """
            import json, sys, yaml, jsonschema
            schema = json.load(open(sys.argv[1]))
            from_yaml = yaml.safe_load(open(sys.argv[2]))
            from_json = json.load(open(sys.argv[3]))
            assert from_yaml == from_json, "the YAML and the JSON differ"
            errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(from_json), key=str)
            print("\\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors))
            sys.exit(1 if errors else 0)
            """, [Self.schema.path, scratch.path("workflow.yaml"), scratch.path("workflow.json")])
        #expect(!check.output.contains("ModuleNotFoundError"), "apt-get install python3-jsonschema python3-yaml")
        #expect(check.status == 0, "\(check.output)")
    }

    /// The schema does not see broken references: prove it, so the reference check is not redundant.
    @Test func theSchemaAloneAcceptsADanglingTemplate() async throws {
        let scratch = try Scratch()
        let json = try await export(scratch, ["--format", "json"])
        let broken = json.stdout.replacingOccurrences(of: "\"template\": \"gather\"", with: "\"template\": \"gahter\"")
        #expect(broken != json.stdout)
        try broken.write(toFile: scratch.path("broken.json"), atomically: true, encoding: .utf8)
        let check = try await Self.pythonOffPool(
            "import json, sys, jsonschema\njsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).validate(json.load(open(sys.argv[2])))",
            [Self.schema.path, scratch.path("broken.json")])
        #expect(check.status == 0, "the schema now catches dangling templates: \(check.output)")
    }

    @Test func theManifestMatchesItsGoldenFile() async throws {
        let scratch = try Scratch()
        let result = try await export(scratch, ["--mount", "/work", "--claim", "photos", "--parallel", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == (try Golden.expected(for: result.stdout, at: Self.golden)))
    }

    /// With the store in a bucket: no volume at all, the S3 settings in each container's environment (the
    /// credentials from a Secret), the manifest valid against Argo's schema and equal to its golden file.
    @Test func aStoreInABucketNeedsNoClaimAndTheManifestValidates() async throws {
        let scratch = try Scratch()
        let options = [
            "--store", "s3://flowrun-state/runs/thumbs", "--s3-secret", "photo-keys", "--s3-endpoint",
            "http://minio.storage:9000", "--s3-region", "eu-west-1",
        ]
        let yaml = try await export(scratch, options)
        #expect(yaml.status == 0, "\(yaml.stderr)")
        #expect(yaml.stdout == (try Golden.expected(for: yaml.stdout, at: Self.bucketGolden)))
        #expect(!yaml.stdout.contains("volume") && !yaml.stdout.contains("persistentVolumeClaim"))
        try yaml.stdout.write(toFile: scratch.path("workflow.yaml"), atomically: true, encoding: .utf8)
        let check = try await Self.pythonOffPool(
            """
            import json, sys, yaml, jsonschema
            errors = list(jsonschema.Draft202012Validator(json.load(open(sys.argv[1]))).iter_errors(
                yaml.safe_load(open(sys.argv[2]))))
            print("\\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors))
            sys.exit(1 if errors else 0)
            """, [Self.schema.path, scratch.path("workflow.yaml")])
        #expect(check.status == 0, "\(check.output)")
    }

    @Test(arguments: [
        (["--store", "s3://b/p", "--claim", "work"], "Error: --claim and --store exclude each other"),
        (["--store", "/tmp/state"], "Error: --store must be s3://BUCKET/PREFIX (without '{{'), found '/tmp/state'"),
        (["--store", "s3://b/{{workflow.name}}"], "Error: --store must be s3://BUCKET/PREFIX (without '{{')"),
        (["--store", "s3://b/p", "--s3-secret", "Keys_1"], "Error: --s3-secret must be a Kubernetes object name"),
        (["--store", "s3://b/p", "--s3-endpoint", "minio:9000"], "Error: --s3-endpoint must be an http(s) URL"),
        (["--store", "s3://b/p", "--s3-region", "eu west"], "Error: --s3-region must be a region name"),
        (["--s3-region", "eu-west-1"], "Error: --s3-secret, --s3-endpoint and --s3-region go with --store"),
    ])
    func badBucketSettingsAreRefused(options: [String], message: String) async throws {
        let scratch = try Scratch()
        let result = try await export(scratch, options)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func workflowSettingsMapOntoArgoFields() async throws {
        let scratch = try Scratch()
        let result = try await export(scratch, ["--format", "json", "--parallel", "2"])
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let spec = try #require(manifest["spec"] as? [String: Any])
        let templates = try #require(spec["templates"] as? [[String: Any]])
        let shard = try #require(templates.first { $0["name"] as? String == "shard" })
        #expect((shard["retryStrategy"] as? [String: Any])?["limit"] as? String == "1")  // fetch: retries: 1
        // Every task has a 30 s timeout. The largest shard has 2 of the 5 photos, and every queue runs 2 at once
        // (`default` as many as the job's CPUs): fetch 2 attempts × 30 + decode, tone, small, save 30 each + 60.
        #expect(shard["activeDeadlineSeconds"] as? String == "240")
        let gather = try #require(templates.first { $0["name"] as? String == "gather" })
        #expect(gather["activeDeadlineSeconds"] as? String == "90")
        let main = try #require(templates.first { $0["name"] as? String == "main" })
        #expect(main["parallelism"] as? Int == 2)
        let container = try #require(shard["container"] as? [String: Any])
        #expect((container["resources"] as? [String: [String: String]])?["requests"]?["cpu"] == "2")
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }

    @Test func inputsOutsideTheWorkflowFolderAreWarnedAbout() async throws {
        let scratch = try Scratch()
        let workflow = try scratch.write(
            "w/outside.yaml",
            "version: 1\ntasks:\n  get: { type: fetch, forEach: { glob: \"../*.jpg\" }, url: \"${item}\" }\n  put: { type: write, path: \"/tmp/x/${item.stem}.jpg\", dependsOn: get }\n"
        )
        try Data([0xFF, 0xD8]).write(to: URL(fileURLWithPath: scratch.path("a.jpg")))
        let result = try await Flowrun.runOffPool(["export", "slurm", workflow, "--shards", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("warning: '../*.jpg' lies outside the workflow's folder"), "\(result.stderr)")
        #expect(result.stderr.contains("warning: '/tmp/x/a.jpg' lies outside"), "\(result.stderr)")
    }

    // MARK: The reference check

    private var sound: ArgoWorkflow {
        let container = ArgoWorkflow.Container(
            image: "i", command: ["flowrun"], args: ["w.yaml", "--shard", "{{inputs.parameters.shard}}/2"], cpus: 1)
        return ArgoWorkflow(
            generateName: "x-", entrypoint: "main",
            templates: [
                ArgoWorkflow.Template(
                    name: "main",
                    dag: [
                        ArgoWorkflow.DAGTask(
                            name: "a", template: "run", arguments: [("shard", "{{item}}")], sequence: 1...2),
                        ArgoWorkflow.DAGTask(
                            name: "b", template: "run", dependencies: ["a"], arguments: [("shard", "1")]),
                    ]),
                ArgoWorkflow.Template(name: "run", container: container, inputs: ["shard"]),
            ],
            storage: .claim("c", mountPath: "/work"))
    }

    @Test func aSoundWorkflowHasNoProblems() {
        #expect(ArgoCheck.problems(in: sound).isEmpty)
    }

    @Test func everyBrokenReferenceIsFound() {
        var workflow = sound
        workflow.entrypoint = "mian"
        workflow.templates[0].dag![0].template = "rnu"
        workflow.templates[0].dag![1].dependencies = ["z"]
        workflow.templates[1].inputs = []
        let problems = ArgoCheck.problems(in: workflow)
        #expect(problems.contains("the entrypoint 'mian' names no template"))
        #expect(problems.contains("task 'a' of DAG 'main' names no template: 'rnu'"))
        #expect(problems.contains("task 'b' of DAG 'main' depends on no task: 'z'"))
        #expect(problems.contains("template 'run' uses {{inputs.parameters.shard}}, which it does not declare"))
    }

    @Test func aCycleIsFound() {
        var workflow = sound
        workflow.templates[0].dag![0].dependencies = ["b"]
        #expect(ArgoCheck.problems(in: workflow) == ["DAG 'main' has a cycle: a → b → a"])
    }

    @Test func duplicatesAndMissingArgumentsAreFound() {
        var workflow = sound
        workflow.templates[0].dag![1].name = "a"
        workflow.templates[0].dag![1].dependencies = []
        workflow.templates[0].dag![1].arguments = []
        workflow.templates.append(workflow.templates[1])
        let problems = ArgoCheck.problems(in: workflow)
        #expect(problems.contains("DAG 'main' has two tasks named 'a'"))
        #expect(problems.contains("two templates are named 'run'"))
        #expect(problems.contains("task 'a' passes no parameter 'shard' to template 'run'"))
    }

    // MARK: Replay

    /// Runs the manifest's DAG as local processes — each task's container command with `{{item}}` and the input
    /// parameters substituted, in dependency order — and compares the outputs with a local run.
    @Test func replayingTheDAGLocallyMakesTheSameBytesAsOneRun() async throws {
        let scratch = try Scratch()
        let workflow = try ShardCommandTests.thumbnails(in: scratch)
        let local = try await Flowrun.runOffPool([workflow, "--param", "out=local", "--no-progress"])
        #expect(local.status == 0, "\(local.stderr)")
        // The claim is the scratch folder mounted at its own path, and the image's flowrun is the built one.
        let exported = try await Flowrun.runOffPool(
            [
                "export", "argo", workflow, "--shards", "3", "--image", "unused", "--format", "json", "--param",
                "out=replayed", "--mount", scratch.url.path, "--binary", Flowrun.binary.path,
            ], in: scratch.url)
        #expect(exported.status == 0, "\(exported.stderr)")
        let manifest = try #require(
            try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        let commands = try Self.replayOrder(of: manifest)
        #expect(commands.count == 4)  // three shards, then the gather
        for command in commands {
            let status = try await offPool {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: command[0])
                process.arguments = Array(command.dropFirst())
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                process.waitUntilExit()
                return process.terminationStatus
            }
            #expect(status == 0, "\(command.joined(separator: " ")) failed")
        }
        #expect(
            try ShardCommandTests.contents(of: scratch.path("w/replayed"))
                == ShardCommandTests.contents(of: scratch.path("w/local")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.path("w/replayed.index"))).count > 0)
    }

    /// The commands of the entrypoint DAG, in dependency order, every sequence expanded.
    static func replayOrder(of manifest: [String: Any]) throws -> [[String]] {
        let spec = try #require(manifest["spec"] as? [String: Any])
        let templates = try #require(spec["templates"] as? [[String: Any]])
        func template(_ name: String) throws -> [String: Any] {
            try #require(templates.first { $0["name"] as? String == name }, "no template \(name)")
        }
        let entry = try template(try #require(spec["entrypoint"] as? String))
        let tasks = try #require((entry["dag"] as? [String: Any])?["tasks"] as? [[String: Any]])
        var done = Set<String>()
        var commands: [[String]] = []
        while done.count < tasks.count {
            let ready = tasks.filter { task in
                !done.contains(task["name"] as? String ?? "")
                    && ((task["dependencies"] as? [String]) ?? []).allSatisfy(done.contains)
            }
            try #require(!ready.isEmpty, "the DAG has a cycle or a dangling dependency")
            for task in ready {
                let container = try #require(
                    try template(task["template"] as? String ?? "")["container"] as? [String: Any])
                let words = ((container["command"] as? [String]) ?? []) + ((container["args"] as? [String]) ?? [])
                var items: [String?] = [nil]
                if let sequence = task["withSequence"] as? [String: String], let start = Int(sequence["start"] ?? ""),
                    let end = Int(sequence["end"] ?? "")
                {
                    items = (start...end).map(String.init)
                }
                let arguments = ((task["arguments"] as? [String: Any])?["parameters"] as? [[String: String]]) ?? []
                for item in items {
                    var resolved = words
                    for argument in arguments {
                        var value = argument["value"] ?? ""
                        if let item { value = value.replacingOccurrences(of: "{{item}}", with: item) }
                        resolved = resolved.map {
                            $0.replacingOccurrences(of: "{{inputs.parameters.\(argument["name"] ?? "")}}", with: value)
                        }
                    }
                    #expect(!resolved.contains { $0.contains("{{") }, "unresolved: \(resolved)")
                    commands.append(resolved)
                }
                done.insert(task["name"] as? String ?? "")
            }
        }
        return commands
    }
}
