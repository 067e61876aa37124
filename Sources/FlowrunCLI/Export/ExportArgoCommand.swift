import ArgumentParser
import FlowKit
import FlowS3
import Foundation

/// `flowrun export argo WORKFLOW --shards N --image IMAGE`: an Argo Workflow whose DAG fans the shards out with
/// `withSequence`, then runs the gather phase.
struct ExportArgoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "argo",
        abstract: "Print an Argo Workflow manifest: the shards fanned out with withSequence, then the gather task.",
        discussion: """
            Every pod mounts the claim at --mount; --root (default: the current folder) is what the claim holds, so \
            a workflow at ROOT/w/x.yaml runs as MOUNT/w/x.yaml. The image must have flowrun on its PATH (or give \
            --binary). Submit with `argo submit` or `kubectl create -f`. With --store s3://bucket/prefix the pods \
            share their results through the bucket and mount no claim: the image holds the workflow at MOUNT/…, \
            and each pod gets the S3 endpoint, region and credentials (the Secret --s3-secret, keys \
            AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY) in its environment.
            """)

    @OptionGroup var export: ExportOptions

    @Option(help: ArgumentHelp("The container image with flowrun in it.", valueName: "IMAGE"))
    var image: String

    @Option(
        help: ArgumentHelp(
            "The PersistentVolumeClaim holding the workflow, inputs and store (default: flowrun-work).",
            valueName: "PVC"))
    var claim: String?

    @Option(help: ArgumentHelp("Keep the store in this bucket instead of on a claim.", valueName: "s3://BUCKET/PREFIX"))
    var store: String?

    @Option(
        help: ArgumentHelp(
            "With --store: the Secret holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.", valueName: "SECRET"))
    var s3Secret = "flowrun-s3"

    @Option(help: ArgumentHelp("With --store: the S3 endpoint (AWS_ENDPOINT_URL), e.g. for MinIO.", valueName: "URL"))
    var s3Endpoint: String?

    @Option(help: ArgumentHelp("With --store: the bucket's region (AWS_REGION).", valueName: "REGION"))
    var s3Region: String?

    @Option(help: ArgumentHelp("Where every pod mounts the claim.", valueName: "PATH"))
    var mount = "/work"

    @Option(help: ArgumentHelp("The local folder the claim holds (default: the current folder).", valueName: "DIR"))
    var root: String?

    @Option(help: ArgumentHelp("The flowrun command inside the image.", valueName: "PATH"))
    var binary = "flowrun"

    @Option(help: ArgumentHelp("Run at most P shard pods at once (default: all).", valueName: "P"))
    var parallel: Int?

    @Option(help: ArgumentHelp("yaml or json.", valueName: "FORMAT"))
    var format = "yaml"

    func validate() throws {
        if !["yaml", "json"].contains(format) {
            throw ValidationError("--format must be yaml or json, found '\(format)'")
        }
        if let parallel, parallel < 1 { throw ValidationError("--parallel must be at least 1") }
        if !mount.hasPrefix("/") { throw ValidationError("--mount must be an absolute path, found '\(mount)'") }
        try validateStore()
        if let claim, !KubernetesNames.isClaimName(claim) {
            throw ValidationError(
                "--claim must be a Kubernetes object name (lower-case letters, digits, '-' and '.', starting and "
                    + "ending with a letter or digit, at most 253 characters), found '\(claim)'")
        }
        if !KubernetesNames.isImageReference(image) {
            throw ValidationError(
                "--image must be an image reference such as registry.example/team/flowrun:1.2, found '\(image)'")
        }
    }

    private func validateStore() throws {
        guard let store else {
            if s3Endpoint != nil || s3Region != nil || s3Secret != "flowrun-s3" {
                throw ValidationError("--s3-secret, --s3-endpoint and --s3-region go with --store")
            }
            return
        }
        if claim != nil { throw ValidationError("--claim and --store exclude each other: the store is in the bucket") }
        guard let location = S3Location(store), !location.bucket.contains("{{") && !location.key.contains("{{") else {
            throw ValidationError("--store must be s3://BUCKET/PREFIX (without '{{'), found '\(store)'")
        }
        if !KubernetesNames.isClaimName(s3Secret) {
            throw ValidationError(
                "--s3-secret must be a Kubernetes object name (lower-case letters, digits, '-' and '.', starting and "
                    + "ending with a letter or digit, at most 253 characters), found '\(s3Secret)'")
        }
        if let s3Endpoint {
            let url = URL(string: s3Endpoint)
            guard let scheme = url?.scheme?.lowercased(), ["http", "https"].contains(scheme), url?.host != nil,
                !s3Endpoint.contains("{{")
            else { throw ValidationError("--s3-endpoint must be an http(s) URL, found '\(s3Endpoint)'") }
        }
        if let s3Region,
            s3Region.isEmpty || !s3Region.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
        {
            throw ValidationError("--s3-region must be a region name such as eu-west-1, found '\(s3Region)'")
        }
    }

    /// Where the pods find the workflow and the store.
    private var storage: ArgoWorkflow.Storage {
        guard store != nil else { return .claim(claim ?? "flowrun-work", mountPath: mount) }
        var environment = ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"].map {
            ArgoWorkflow.EnvironmentVariable(name: $0, secret: (s3Secret, $0))
        }
        if let s3Endpoint { environment.append(.init(name: "AWS_ENDPOINT_URL", value: s3Endpoint)) }
        if let s3Region { environment.append(.init(name: "AWS_REGION", value: s3Region)) }
        return .bucket(environment: environment)
    }

    func run() throws {
        let terminal = Terminal()
        let localRoot = URL(fileURLWithPath: root ?? FileManager.default.currentDirectoryPath).standardizedFileURL.path
        let workflow = try export.load(terminal: terminal)
        guard workflow.absolutePath.hasPrefix(localRoot.hasSuffix("/") ? localRoot : localRoot + "/") else {
            terminal.error(
                "error: \(workflow.absolutePath) is not under \(localRoot), the folder the claim holds: give --root\n")
            throw ExitCode(2)
        }
        let podWorkflowPath = mount + "/" + workflow.absolutePath.dropFirst(localRoot.count).drop { $0 == "/" }
        // Argo substitutes `{{…}}` in every string of a manifest and has no escape for it: text that holds it
        // would reach flowrun changed, or fail the workflow, so it is refused.
        let templated = ([podWorkflowPath, binary] + workflow.overrides).filter { $0.contains("{{") }
        guard templated.isEmpty else {
            for text in templated {
                terminal.error(
                    "error: '\(text)' holds '{{', which Argo reads as its own template syntax: rename the path or "
                        + "change the value\n")
            }
            throw ExitCode(2)
        }
        let manifest = ArgoExport(
            exported: workflow, shards: export.shards, image: image, storage: storage, store: store, binary: binary,
            podWorkflowPath: podWorkflowPath, parallel: parallel
        ).workflow
        let problems = ArgoCheck.problems(in: manifest)
        guard problems.isEmpty else {
            terminal.error("internal error: the manifest is not sound:\n  " + problems.joined(separator: "\n  ") + "\n")
            throw ExitCode(1)
        }
        let document = manifest.manifest
        terminal.print(
            format == "json"
                ? String(decoding: document.json(pretty: true, escaping: .controlsAndBreaks), as: UTF8.self) + "\n"
                : document.yaml())
    }
}

/// How a split workflow maps onto Argo: the shard template fanned out over `1...N`, the gather template after it;
/// with lists made at run time, the lists template before the shards, which replay its lists from the store.
///
/// Queue limits bound how much each pod runs at once: its CPU request and `--max-concurrent` are the largest
/// limit; `parallelism` bounds how many shard pods run at once. A task's `retries` become the pod's
/// `retryStrategy` (the most retries of any task: a pod retried after a failure resumes from the store), and when
/// every task has a `timeout`, `activeDeadlineSeconds` bounds each pod by its nodes' worst case.
struct ArgoExport {
    let exported: ExportedWorkflow
    let shards: Int
    let image: String
    let storage: ArgoWorkflow.Storage
    /// The bucket of the store (`s3://…`), `nil` for a store on the claim.
    let store: String?
    let binary: String
    let podWorkflowPath: String
    let parallel: Int?

    var workflow: ArgoWorkflow {
        let plan = exported.plan
        let stateDirectory = store ?? FilePaths.folder(of: podWorkflowPath) + "/.flowrun"
        let common = [podWorkflowPath] + exported.overrides.flatMap { ["--param", $0] }
        let runOptions = ["--state-dir", stateDirectory, "--no-progress", "--max-concurrent", String(exported.cpus)]
        // On the claim the merged report stays beside the store; a pod's own folder goes with the pod.
        let report =
            store == nil
            ? ["--report", stateDirectory + "/" + FilePaths.name(of: podWorkflowPath) + ".report.json"] : []
        let retries = exported.maxRetries
        let name = Self.kubernetesName(plan.workflow.name)
        // With lists made at run time, the lists step runs once and the shards, which replay its lists, after it.
        let lists = exported.split.hasRunTimeLists
        let listsStep = [
            ArgoWorkflow.Template(
                name: "lists", container: container(common + ["--lists"] + runOptions),
                retryLimit: retries > 0 ? retries : nil,
                activeDeadlineSeconds: exported.deadline(of: exported.listsStep))
        ]
        return ArgoWorkflow(
            generateName: "flowrun-\(name)-", entrypoint: "main",
            templates: [
                ArgoWorkflow.Template(
                    name: "main",
                    dag: (lists ? [ArgoWorkflow.DAGTask(name: "lists", template: "lists")] : []) + [
                        ArgoWorkflow.DAGTask(
                            name: "shards", template: "shard", dependencies: lists ? ["lists"] : [],
                            arguments: [("shard", "{{item}}")], sequence: 1...shards),
                        ArgoWorkflow.DAGTask(name: "gather", template: "gather", dependencies: ["shards"]),
                    ],
                    parallelism: parallel)
            ] + (lists ? listsStep : []) + [
                ArgoWorkflow.Template(
                    name: "shard",
                    container: container(common + ["--shard", "{{inputs.parameters.shard}}/\(shards)"] + runOptions),
                    inputs: ["shard"], retryLimit: retries > 0 ? retries : nil,
                    activeDeadlineSeconds: exported.deadline(of: exported.largestShard(of: shards))),
                ArgoWorkflow.Template(
                    name: "gather",
                    container: container(
                        common + ["--gather"] + runOptions + report),
                    retryLimit: retries > 0 ? retries : nil,
                    activeDeadlineSeconds: exported.deadline(of: exported.gatherPhase)),
            ],
            storage: storage)
    }

    private func container(_ args: [String]) -> ArgoWorkflow.Container {
        ArgoWorkflow.Container(image: image, command: [binary], args: args, cpus: exported.cpus)
    }

    /// A workflow name as a Kubernetes object name: lower-case letters, digits and dashes.
    static func kubernetesName(_ name: String) -> String {
        let mapped = name.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }
        let trimmed = String(mapped).split(separator: "-").joined(separator: "-")
        return trimmed.isEmpty ? "workflow" : String(trimmed.prefix(40))
    }
}
