import ArgumentParser
import FlowKit
import Foundation
import Synchronization

/// The `flowrun` command line as a library, so a package can ship its own `flowrun` with more task types: the
/// `main.swift` of its executable calls ``run(registry:arguments:)`` with the standard registry and its own types.
///
/// ```swift
/// import FlowImaging
/// import FlowKit
/// import FlowrunCLI
///
/// /// Everything `flowrun` does, with one more task type (`VignetteTask` in `examples/CustomTask`, say).
/// func myFlowrun(adding yourTask: any TaskType) -> Never {
///     FlowrunMain.run(registry: TaskRegistry.standard.adding(yourTask))
/// }
/// ```
public enum FlowrunMain {
    /// Parses the arguments, runs the command and exits with flowrun's exit codes: 0 success, 1 a node
    /// failed, 2 invalid workflow or arguments, 130 interrupted.
    public static func run(registry: TaskRegistry, arguments: [String]? = nil) -> Never {
        CommandEnvironment.registry = registry
        // Past a file-size limit (`ulimit -f`) the kernel sends SIGXFSZ, whose default action kills the process:
        // with a handler instead, the write fails with EFBIG and is reported like any other I/O error. A
        // handler rather than SIG_IGN, so programs started by `command` get the default action back.
        signal(SIGXFSZ) { _ in }
        do {
            var command = try Flowrun.parseAsRoot(arguments)
            try command.run()
            Foundation.exit(0)
        } catch {
            exit(after: error)
        }
    }

    /// Prints what argument-parser says about `error` and exits. Its messages quote the command line (an unknown
    /// option, a bad value) and the errors commands throw, so they reach stderr through ``Terminal/error(_:styled:)``
    /// like every other message; a thrown `ExitCode` prints nothing, and help, `--version` and completion scripts
    /// (exit 0) are flowrun's own text for stdout.
    private static func exit(after error: any Error) -> Never {
        let code = Flowrun.exitCode(for: error)
        if error is ExitCode || code == .success { Flowrun.exit(withError: error) }
        Terminal().error(Flowrun.fullMessage(for: error) + "\n")
        // argument-parser exits 64 (EX_USAGE) for bad arguments on Linux; flowrun promises 2.
        Foundation.exit(code == .validationFailure ? 2 : code.rawValue)
    }
}

/// What the commands share that argument-parser cannot pass in: the registry of task types.
enum CommandEnvironment {
    private static let storage = Mutex(TaskRegistry.builtIn)

    static var registry: TaskRegistry {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}

/// The root command. `flowrun FILE` is `flowrun run FILE`.
struct Flowrun: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flowrun",
        abstract: "A declarative workflow engine: run YAML task graphs on named operation queues.",
        discussion: """
            Exit codes: 0 all nodes succeeded, 1 a node failed, 2 the workflow or the command line is invalid, \
            130 interrupted.
            """,
        version: "0.1.0",
        // `clean` is what Make users mean: the files the runs wrote; `clean --stale` the stale ones only.
        subcommands: [
            RunCommand.self, ValidateCommand.self, ExplainCommand.self, GraphCommand.self, CacheCommand.self,
            CleanCommand.self, TasksCommand.self, SchemaCommand.self, ReportCommand.self, ExportCommand.self,
        ],
        defaultSubcommand: RunCommand.self)
}

/// The workflow file and `--param` overrides, shared by run, validate and graph.
struct WorkflowOptions: ParsableArguments {
    @Argument(help: "The workflow file (YAML).", completion: .file(extensions: ["yaml", "yml"]))
    var workflow: String

    @Option(
        name: .customLong("param"),
        help: ArgumentHelp("Override a param: --param key=value (repeatable).", valueName: "key=value"))
    var params: [String] = []

    @Option(
        name: .customLong("env-file"),
        help: ArgumentHelp(
            "Read variables for ${env.NAME} from a dotenv file (repeatable; the environment wins).",
            valueName: "FILE"))
    var envFiles: [String] = []

    @Option(
        name: .customLong("target"),
        help: ArgumentHelp(
            "Run only this task (or one node, save[3]) and what it needs (repeatable).", valueName: "TASK"))
    var targets: [String] = []

    @Flag(help: "Treat a glob that matches no files as an error, not a warning.")
    var strict = false

    @Option(
        help: ArgumentHelp(
            "Also print workflow errors and failed nodes for a CI to annotate: github (the default when "
                + "GITHUB_ACTIONS=true) or none.", valueName: "format"))
    var annotations: AnnotationFormat?

    /// Whether GitHub's annotations are printed, asked for or in GitHub Actions.
    var githubAnnotations: Bool {
        AnnotationFormat.resolved(annotations, environment: ProcessInfo.processInfo.environment) == .github
    }

    func validate() throws {
        for param in params where !param.contains("=") || param.hasPrefix("=") {
            throw ValidationError("--param '\(param)' must be key=value")
        }
    }

    var overrides: [(name: String, value: String)] {
        params.map { param in
            let parts = param.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// Loads and plans the workflow, printing diagnostics to stderr.
    /// - Throws: `ExitCode(2)` when the workflow is invalid.
    /// - Parameter checksFiles: Whether the files that must be there before a run are checked: by what runs or
    ///   says what a run would do, not by an export (its jobs check them where they run), a graph or a clean.
    func loadPlan(terminal: Terminal, checksFiles: Bool = true) throws -> Plan {
        let result = load(terminal: terminal, environment: try environment(terminal), checksFiles: checksFiles)
        guard let plan = result.plan else {
            terminal.error("\(Self.errorCount(result)) in \(workflow); nothing was run\n")
            throw ExitCode(2)
        }
        return plan
    }

    /// Loads and plans the workflow with `environment`, printing its diagnostics to stderr.
    func load(terminal: Terminal, environment: [String: String], checksFiles: Bool = true)
        -> WorkflowLoader.LoadResult
    {
        var loader = WorkflowLoader(
            registry: CommandEnvironment.registry, paramOverrides: overrides, environment: environment)
        loader.targets = targets
        loader.strict = strict
        loader.checksFiles = checksFiles
        loader.alsoReads = envFiles
        let result = loader.plan(path: workflow)
        if !result.diagnostics.all.isEmpty {
            let renderer = DiagnosticRenderer(sources: result.sources)
            terminal.error(renderer.render(result.diagnostics), styled: terminal.colorsDiagnostics)
            annotate(result.diagnostics, terminal: terminal)
        }
        return result
    }

    /// GitHub's annotations of `diagnostics` on stdout, where the runner reads workflow commands, with
    /// `--annotations github`.
    func annotate(_ diagnostics: Diagnostics, terminal: Terminal) {
        guard githubAnnotations, !diagnostics.all.isEmpty else { return }
        terminal.print(diagnostics.all.map { GitHubAnnotations.line(for: $0) + "\n" }.joined())
    }

    /// "1 error", "3 errors": how many errors a load found.
    static func errorCount(_ result: WorkflowLoader.LoadResult) -> String {
        let errors = result.diagnostics.all.filter { $0.severity == .error }.count
        return "\(errors) error\(errors == 1 ? "" : "s")"
    }

    /// The process environment over the `--env-file` variables (later files over earlier ones), as Compose
    /// does: a variable set in the shell is not overridden by a file.
    /// - Throws: `ExitCode(2)` when an env file cannot be read or has malformed lines, all reported.
    func environment(_ terminal: Terminal) throws -> [String: String] {
        let process = ProcessInfo.processInfo.environment
        guard !envFiles.isEmpty else { return process }
        var diagnostics = Diagnostics()
        var sources: [String: String] = [:]
        var merged: [String: String] = [:]
        for path in envFiles {
            let (values, text) = DotEnvFile.load(path: path, diagnostics: &diagnostics)
            sources[path] = text
            merged.merge(values) { $1 }
        }
        if diagnostics.hasErrors {
            terminal.error(DiagnosticRenderer(sources: sources).render(diagnostics), styled: terminal.colorsDiagnostics)
            annotate(diagnostics, terminal: terminal)
            let errors = diagnostics.all.count
            terminal.error("\(errors) error\(errors == 1 ? "" : "s") in --env-file; nothing was run\n")
            throw ExitCode(2)
        }
        return merged.merging(process) { $1 }
    }
}
