import ArgumentParser
import FlowKit
import FlowS3
import Foundation

/// `flowrun export slurm WORKFLOW --shards N`: a bash script that submits the shards as a job array and the
/// gather phase as a job that waits for all of them.
struct ExportSlurmCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "slurm",
        abstract: "Print a script that sbatches the shards as a job array, then the gather job after them.",
        discussion: """
            Run the script on a login node. It prints the two job ids. The workflow, its inputs and the state folder \
            must be on a filesystem every node sees, at the same path; with --store s3://bucket/prefix the jobs \
            share their results through the bucket instead, and only the workflow and its inputs need be at the \
            same path on every node. To rerun some shards, run the script again with SHARDS=2,4; \
            FLOWRUN=/path/to/flowrun overrides the binary.
            """)

    @OptionGroup var export: ExportOptions

    @Option(help: ArgumentHelp("The Slurm partition to submit to.", valueName: "P"))
    var partition: String?

    @Option(help: ArgumentHelp("The time limit of each job (sbatch --time, e.g. 2:00:00).", valueName: "T"))
    var time: String?

    @Option(help: ArgumentHelp("The memory of each job (sbatch --mem, e.g. 4G).", valueName: "M"))
    var mem: String?

    @Option(
        help: ArgumentHelp(
            "The state folder the shards and the gather share (default: .flowrun beside the workflow).",
            valueName: "DIR"))
    var stateDir: String?

    @Option(
        help: ArgumentHelp(
            "Keep the store in this bucket: each job runs with --state-dir s3://BUCKET/PREFIX.",
            valueName: "s3://BUCKET/PREFIX"))
    var store: String?

    func validate() throws {
        guard let store else { return }
        if stateDir != nil { throw ValidationError("--state-dir and --store exclude each other") }
        if S3Location(store) == nil { throw ValidationError("--store must be s3://BUCKET/PREFIX, found '\(store)'") }
    }

    func run() throws {
        let terminal = Terminal()
        let workflow = try export.load(terminal: terminal)
        let localState =
            stateDir.map { URL(fileURLWithPath: $0).standardizedFileURL.path } ?? workflow.folder + "/.flowrun"
        let script = SlurmScript(
            workflow: workflow, shards: export.shards, flowrun: Self.binaryPath,
            stateDirectory: store ?? localState, logDirectory: localState,
            sbatchOptions: [("partition", partition), ("time", time), ("mem", mem)].compactMap { name, value in
                value.map { "--\(name)=\($0)" }
            })
        terminal.print(script.render())
    }

    /// The absolute path of the running flowrun, which the jobs run unless `FLOWRUN` says otherwise.
    static var binaryPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
    }
}
