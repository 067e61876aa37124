import Foundation

/// What a `command` node runs, resolved from its parameters: the executable, arguments, environment and
/// working directory.
struct CommandInvocation: Sendable {
    /// The absolute (or working-directory-relative, made absolute) path of the program.
    var executable: String
    /// `argv` as written, argv[0] included; passed to the program verbatim, never through a shell.
    var argv: [String]
    /// The inherited environment with the `env` parameter applied.
    var environment: [String: String]
    /// Where the program runs.
    var workingDirectory: String

    /// The command line for messages and the payload's source, quoted only where needed to read it back.
    var displayName: String {
        argv.map(Self.quotedForDisplay).joined(separator: " ")
    }

    /// The program as the user named it, for messages.
    var programName: String { argv.first ?? executable }

    /// Resolves the node's parameters, or fails with a message that says what is missing.
    static func resolve(
        _ parameters: CommandTask.Parameters, context: NodeContext
    ) -> Result<CommandInvocation, NodeFailure> {
        let argv = parameters.argv
        guard let program = argv.first, !program.isEmpty else {
            return .failure(context.failure(.invalidInput, "'argv' needs at least the program to run"))
        }
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in parameters.env ?? [:] { environment[name] = value }

        let written = parameters.workingDirectory
        let directory = absolute(context.resolvePath(written ?? "."))
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return .failure(
                context.failure(
                    .io, "working directory '\(written ?? directory)' does not exist or is not a folder (\(directory))")
            )
        }

        let executable: String
        if program.contains("/") {
            // Like execvp after chdir: a relative path with a slash is relative to the working directory.
            executable = absolute(program, base: directory)
            guard isExecutableFile(executable) else {
                return .failure(
                    context.failure(.process, "cannot run '\(program)': no executable file at \(executable)"))
            }
        } else {
            guard let found = search(program, path: environment["PATH"], directory: directory) else {
                return .failure(context.failure(.process, "cannot run '\(program)': command not found on PATH"))
            }
            executable = found
        }
        return .success(
            CommandInvocation(
                executable: executable, argv: argv, environment: environment, workingDirectory: directory))
    }

    /// Looks a program name up on PATH (the child's PATH, so `env: {PATH: …}` applies), as execvp does.
    static func search(_ name: String, path: String?, directory: String) -> String? {
        let entries = folders(of: path).split(separator: ":", omittingEmptySubsequences: false)
        for entry in entries {
            // An empty entry means the working directory, as in POSIX shells.
            let folder = entry.isEmpty ? directory : absolute(String(entry), base: directory)
            let candidate = folder + "/" + name
            if isExecutableFile(candidate) { return candidate }
        }
        return nil
    }

    /// The folders of a `PATH`, the default one when it is not set.
    static func folders(of path: String?) -> String { path ?? "/usr/local/bin:/usr/bin:/bin" }

    static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }

    static func absolute(_ path: String, base: String = FileManager.default.currentDirectoryPath) -> String {
        let joined = path.hasPrefix("/") ? path : base + "/" + path
        return URL(fileURLWithPath: joined).standardizedFileURL.path
    }

    private static func quotedForDisplay(_ argument: String) -> String {
        let plain = !argument.isEmpty && argument.allSatisfy { $0.isLetter || $0.isNumber || "-_./=:,+@%".contains($0) }
        return plain ? argument : "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
