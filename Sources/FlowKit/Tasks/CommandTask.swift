import FlowS3
import Foundation

/// `command`: runs a program (never through a shell) and provides its standard output as data.
///
/// ```yaml
/// shout:
///   type: command
///   argv: [tr, a-z, A-Z]
///   stdin: true          # feed the upstream data to the program
///   dependsOn: [fetch]
/// ```
///
/// With `stdin: true` a gather command reads every succeeded item's data, concatenated in item order. An
/// `argv` entry `${inputs}` becomes one argument per file the dependencies wrote (`write`) or read (a local
/// `fetch`), in item order; `${input}` inside an entry becomes the one such file.
package struct CommandTask: TaskType {
    package init() {}

    /// Kills (SIGKILL) the process group of every program that `command` nodes are running, for a process that
    /// exits without waiting for them (flowrun's second Ctrl-C), so that none outlives it: they lead their own
    /// process groups, where the terminal's Ctrl-C does not reach them.
    package static func killRunningPrograms() { CommandRun.killAll() }
    package var name: String { "command" }
    package var summary: String { "Runs a program (no shell) and provides its standard output as data." }
    /// The parameters of ``CommandTask``.
    package struct Parameters: TaskParameters {
        @Parameter(
            help: "The program and its arguments, passed verbatim; argv[0] is looked up on PATH when it has no slash.")
        package var argv: [String]
        @Parameter(help: "Environment variables added to (or replacing) the inherited ones.")
        package var env: StringMap?
        @Parameter(
            help: "The program's working directory, relative to the workflow file (default: the workflow's folder).")
        package var workingDirectory: String?
        @Parameter(help: "Feed the upstream data to the program's standard input (otherwise it reads /dev/null).")
        package var stdin = false
        @Parameter(
            help: "Fail (and stop the program) when standard output grows past this (held in memory, 16 GiB at most).",
            range: 0...Double(1 << 34))
        package var maxOutputBytes = 64 << 20
        @Parameter(
            help: "Files the program reads besides its arguments (paths or globs, relative to the workflow): their "
                + "content is part of the node's key, so editing one runs it again.")
        package var inputs: [String]?
        package init() {}

        package static var itemParameters: [ItemParameter<Self>] {
            [
                .storage(\._argv), .storage(\._env), .storage(\._workingDirectory), .storage(\._stdin),
                .storage(\._maxOutputBytes), .storage(\._inputs),
            ]
        }

        static let inputsReference = "${inputs}"
        static let inputReference = "${input}"

        package func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if argv.first?.isEmpty ?? true {
                diagnostics.error("'argv' needs at least the program to run", at: $argv.location)
            }
            if argv.first?.contains("${input") == true {
                diagnostics.error("the program itself cannot be '${inputs}' or '${input}'", at: $argv.location)
            }
            for entry in argv where entry.contains(Self.inputsReference) && entry != Self.inputsReference {
                diagnostics.error(
                    "'${inputs}' must be an argv entry of its own, found '\(entry)'", at: $argv.location,
                    hint: "it becomes one argument per input file; use ${input} inside text for a single file")
            }
            if (env ?? [:]).contains(where: { $0.value.contains("${input") }) {
                diagnostics.error("'${inputs}' and '${input}' are expanded only in 'argv'", at: $env.location)
            }
            if workingDirectory?.contains("${input") == true {
                diagnostics.error(
                    "'${inputs}' and '${input}' are expanded only in 'argv'", at: $workingDirectory.location)
            }
        }
    }
    /// Any dependency may only order the run; with `stdin: true` the one providing data feeds the program.
    package var consumes: InputRequirement { .anything }
    package var provides: ProviderKind? { .data }
    package var cachedByDefault: Bool { false }
    /// The content of the files it runs (``CommandCode``): what it reads from outside the workflow.
    package func sourceIdentity(_ parameters: Parameters, directory: String, cache: CacheSetting?) -> SourceIdentity? {
        CommandCode.identity(of: CommandCode.files(parameters, directory: directory))
    }

    package func makeOperation(_ context: NodeContext) -> FlowOperation { CommandOperation(context: context) }
}

extension CommandTask: ParameterDependentInput {
    /// Only `stdin: true` reads a dependency's output; otherwise they only order the run.
    package func readsInput(_ parameters: Parameters) -> Bool { parameters.stdin }
    /// `${inputs}` and `${input}` in `argv` name the files the dependencies wrote or read.
    package func readsInputFiles(_ parameters: Parameters) -> Bool {
        parameters.argv.contains { $0.contains("${input") }
    }
}

/// The operation of ``CommandTask``: spawns the program, streams its input and output, and stops it
/// (SIGTERM to its process group, SIGKILL after a grace period) when cancelled.
///
/// The output is a ``DataPayload`` of the program's standard output whose `source` is the command line.
/// A non-zero exit or a death by signal fails the node with code ``NodeFailure/Code/process`` and the tail
/// of the program's standard error.
package final class CommandOperation: FlowOperation, DataProvider, @unchecked Sendable {
    /// How long a cancelled program has between SIGTERM and SIGKILL.
    package let terminationGrace: Duration

    /// Creates the operation with the default two-second termination grace period.
    package override convenience init(context: NodeContext) {
        self.init(context: context, terminationGrace: .seconds(2))
    }

    /// Creates the operation with a chosen termination grace period (tests use a short one).
    package init(context: NodeContext, terminationGrace: Duration) {
        self.terminationGrace = terminationGrace
        super.init(context: context)
    }

    /// The program's standard output, once the operation has succeeded.
    package var providedData: DataPayload? { output(as: DataPayload.self) }

    package override func execute() {
        let parameters = context.parameters(as: CommandTask.Parameters.self)
        var stdinBytes: Data?
        if parameters.stdin {
            // Every dependency's data in item order: a gather reads all its items, not the first.
            let payloads = inputs((any DataProvider).self).compactMap(\.providedData)
            guard !payloads.isEmpty else {
                return finish(
                    .failure(
                        context.failure(
                            .invalidInput, "'stdin: true' needs a dependency that provides data (e.g. a fetch)")))
            }
            stdinBytes = payloads.count == 1 ? payloads[0].bytes : payloads.reduce(into: Data()) { $0 += $1.bytes }
        }
        var invocation: CommandInvocation
        switch CommandInvocation.resolve(parameters, context: context) {
        case .success(let resolved): invocation = resolved
        case .failure(let failure): return finish(.failure(failure))
        }
        if parameters.argv.contains(where: { $0.contains("${input") }) {
            switch expandingInputFiles(invocation.argv, relativeToWorkflow: parameters.workingDirectory == nil) {
            case .success(let argv): invocation.argv = argv
            case .failure(let failure): return finish(.failure(failure))
            }
        }
        let newRun = CommandRun(
            invocation: invocation, stdin: stdinBytes, maxOutputBytes: parameters.maxOutputBytes,
            terminationGrace: terminationGrace,
            context: context)
        // Registered before the run starts: a cancel that came during the set-up stops it before it spawns.
        whenCancelled { newRun.cancel() }
        let executor = CommandExecutor(label: "flowrun.command.\(context.nodeID)")
        Task(executorPreference: executor, priority: CommandExecutor.priority) { [self] in
            finish(await newRun.run())
        }
    }
}

extension CommandOperation {
    /// `argv` with `${inputs}` replaced by one argument per input file and `${input}` by the only one.
    ///
    /// Paths stay as written (relative to the workflow's folder) when the program runs there; otherwise they
    /// are made absolute, so they name the same files from its working directory.
    func expandingInputFiles(_ argv: [String], relativeToWorkflow: Bool) -> Result<[String], NodeFailure> {
        let files = inputs((any FileProvider).self).compactMap(\.providedFile).map { file in
            // An object in a bucket is named by its URL wherever the program runs.
            relativeToWorkflow || file.path.hasPrefix("/") || S3Location(file.path) != nil
                ? file.path : CommandInvocation.absolute(context.resolvePath(file.path))
        }
        var expanded: [String] = []
        for entry in argv {
            if entry == CommandTask.Parameters.inputsReference {
                expanded += files
            } else if entry.contains(CommandTask.Parameters.inputReference) {
                guard files.count == 1 else {
                    return .failure(
                        context.failure(
                            .invalidInput,
                            "'${input}' needs exactly one input file, and the dependencies wrote or read \(files.count)"
                                + "; use ${inputs} for one argument per file"))
                }
                expanded.append(entry.replacingOccurrences(of: CommandTask.Parameters.inputReference, with: files[0]))
            } else {
                expanded.append(entry)
            }
        }
        return .success(expanded)
    }
}
