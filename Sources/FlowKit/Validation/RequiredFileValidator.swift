import FlowS3
import Foundation

/// Reports the files a workflow names that must be there before it runs and are not, so that a misspelt program
/// or a missing script fails validation instead of its nodes, after everything before them ran:
///
/// - a `command`'s program: a path (with a `/`) that is no executable file, or a name not found on the `PATH` the
///   command runs with;
/// - the script an interpreter is given (``CommandScript``: `sh ./gen.sh`, `python3 scripts/x.py`), inside the
///   workflow's folder tree;
/// - a `command`'s `inputs:` entry that names no file;
/// - the files a ``RequiresFilesBeforeRun`` task reads (`overlay`'s image).
///
/// Only values known for the whole task are checked, once per task however many nodes it has: the literal entries
/// of `argv` and `inputs:` (an entry with `${…}` is skipped), and the files read by a task whose values do not
/// mention its item. A relative path that the run may make first is not reported: one a node writes, or any when a
/// `command` runs upstream of the task (what a program writes is not known).
///
/// Run by ``NodeParameterValidator`` once the files the nodes write are known.
struct RequiredFileValidator {
    let context: ValidationContext
    /// Whether a `command` runs upstream of each task, by task index.
    private let commandUpstream: [Bool]
    /// The workflow's folder as written, which paths in messages are joined to.
    private var directory: String { context.workflow.directory }

    init(context: ValidationContext) {
        self.context = context
        let tasks = context.workflow.tasks
        let isCommand = tasks.map { context.type(of: $0) is CommandTask }
        var commandUpstream = [Bool](repeating: false, count: tasks.count)
        // Dependencies first; without an order there is a cycle, reported, and nothing is suppressed.
        for index in context.order ?? [] {
            commandUpstream[index] = context.upstream[index].contains { isCommand[$0] || commandUpstream[$0] }
        }
        self.commandUpstream = commandUpstream
    }

    /// Checks every task.
    /// - Parameters:
    ///   - sharedReads: The files read by the nodes of each task whose values do not mention its item, by task index.
    ///   - files: The files the nodes write.
    func check(sharedReads: [Int: FileAccess], files: FileCollisionValidator, diagnostics: inout Diagnostics) {
        for (index, task) in context.workflow.tasks.enumerated() {
            guard let type = context.type(of: task) else { continue }
            if type is CommandTask {
                checkCommand(task, index: index, files: files, diagnostics: &diagnostics)
            } else if type is any RequiresFilesBeforeRun, let access = sharedReads[index] {
                for file in access.reads {
                    checkRead(file, of: task, type: type, index: index, files: files, diagnostics: &diagnostics)
                }
            }
        }
    }

    /// Whether a missing file at `path` (as written) may be made by the run before the task reads it.
    private func mayBeMade(_ path: String, absolute: String, index: Int, files: FileCollisionValidator) -> Bool {
        files.writes(absolute) || (!path.hasPrefix("/") && commandUpstream[index])
    }

    private func checkRead(
        _ file: FileAccess.File, of task: TaskSpec, type: any TaskType, index: Int, files: FileCollisionValidator,
        diagnostics: inout Diagnostics
    ) {
        let path = file.path
        guard !path.isEmpty, !S3Location.isS3(path) else { return }
        let absolute = CommandInvocation.absolute(NodeContext.resolve(path, in: directory))
        guard !exists(absolute), !mayBeMade(path, absolute: absolute, index: index, files: files) else { return }
        diagnostics.error(
            "\(type.name) file '\(path)' does not exist", at: task.parameters[file.parameter]?.value.location,
            suggestion: sibling(of: path, absolute: absolute),
            hint: "paths are relative to the workflow file's folder; looked for '\(shown(path, in: directory))'")
    }

    // MARK: command

    private func checkCommand(
        _ task: TaskSpec, index: Int, files: FileCollisionValidator, diagnostics: inout Diagnostics
    ) {
        guard let argv = task.parameters["argv"]?.value.sequence, let program = argv.first?.scalar else { return }
        let written = task.parameters["workingDirectory"]?.value.scalar
        // A working directory known per node: the relative paths of argv are not known for the task.
        let knownFolder = !(written?.contains("${") ?? false)
        let workingDirectory = CommandCode.workingDirectory(written, directory: directory)
        let folderShown = FilePaths.normalised(written ?? ".", in: directory)
        let relativeTo =
            written == nil ? "relative to the workflow file's folder" : "relative to its workingDirectory"
        if program.contains("/") {
            if knownFolder || program.hasPrefix("/") {
                checkProgramPath(
                    program, at: argv[0].location, workingDirectory: workingDirectory, shownIn: folderShown,
                    relativeTo: relativeTo, index: index, files: files, diagnostics: &diagnostics)
            }
        } else if !program.isEmpty, !program.contains("${") {
            checkProgramName(
                program, of: task, at: argv[0].location, workingDirectory: workingDirectory,
                diagnostics: &diagnostics)
        }
        let texts = argv.map { $0.scalar ?? "" }
        if knownFolder, let position = CommandScript.scriptPosition(in: texts), !texts[position].hasPrefix("/"),
            let path = CommandCode.codePath(texts[position], at: position, workingDirectory: workingDirectory),
            CommandCode.isInside(path, CommandInvocation.absolute(NodeContext.resolve(".", in: directory))),
            !exists(path), !mayBeMade(texts[position], absolute: path, index: index, files: files)
        {
            let script = texts[position]
            diagnostics.error(
                "script '\(script)' does not exist", at: argv[position].location,
                suggestion: sibling(of: script, absolute: path),
                hint: "\(relativeTo); looked for '\(shown(script, in: folderShown))'")
        }
        for entry in task.parameters["inputs"]?.value.sequence ?? [] {
            checkInput(entry, index: index, files: files, diagnostics: &diagnostics)
        }
    }

    private func checkProgramPath(
        _ program: String, at location: SourceLocation, workingDirectory: String, shownIn folder: String,
        relativeTo: String, index: Int, files: FileCollisionValidator, diagnostics: inout Diagnostics
    ) {
        guard let path = CommandCode.codePath(program, at: 0, workingDirectory: workingDirectory) else { return }
        var isFolder: ObjCBool = false
        let lookedFor = program.hasPrefix("/") ? "" : "\(relativeTo); looked for '\(shown(program, in: folder))'"
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            guard !mayBeMade(program, absolute: path, index: index, files: files) else { return }
            diagnostics.error(
                "program '\(program)' does not exist", at: location, suggestion: sibling(of: program, absolute: path),
                hint: program.hasPrefix("/") ? "a program named with a '/' is run from that path" : lookedFor)
        } else if isFolder.boolValue {
            diagnostics.error(
                "program '\(program)' is a folder, not a program", at: location,
                hint: lookedFor.isEmpty ? nil : lookedFor)
        } else if !CommandInvocation.isExecutableFile(path),
            // An upstream command may make it executable (chmod +x) as it may make it.
            !mayBeMade(program, absolute: path, index: index, files: files)
        {
            diagnostics.error(
                "program '\(program)' is not executable", at: location,
                hint: "make it executable (chmod +x), or put its interpreter before it in argv (e.g. [sh, \(program)])")
        }
    }

    /// A program named without a `/`, looked up as the command will: on the `PATH` it runs with, the task's
    /// `env: { PATH: … }` over flowrun's own (the command inherits flowrun's process environment, not the
    /// `--env-file` values `${env.…}` reads). A `PATH` known only per node (`${…}`) is not checked.
    private func checkProgramName(
        _ program: String, of task: TaskSpec, at location: SourceLocation, workingDirectory: String,
        diagnostics: inout Diagnostics
    ) {
        let taskPath = task.parameters["env"]?.value.mapping?.first { $0.key.scalar == "PATH" }?.value
        if let taskPath, taskPath.scalar?.contains("${") ?? true { return }
        let path = taskPath?.scalar ?? ProcessInfo.processInfo.environment["PATH"]
        guard CommandInvocation.search(program, path: path, directory: workingDirectory) == nil else { return }
        diagnostics.error(
            "'\(program)' is not found on PATH", at: location,
            suggestion: Suggestion.closest(
                to: program, in: Self.programs(on: path, workingDirectory: workingDirectory)),
            hint: taskPath == nil
                ? "install it, or name it by its path (with a '/')"
                : "the task's env sets PATH to '\(path ?? "")'")
    }

    /// The names of the files in the folders of a `PATH`, for a did-you-mean: asked only when a program is not
    /// found; a folder of more than 10,000 entries is not listed.
    private static func programs(on path: String?, workingDirectory: String) -> Set<String> {
        var names = Set<String>()
        for entry in CommandInvocation.folders(of: path).split(separator: ":", omittingEmptySubsequences: false) {
            let folder =
                entry.isEmpty ? workingDirectory : CommandInvocation.absolute(String(entry), base: workingDirectory)
            guard let listed = try? FileManager.default.contentsOfDirectory(atPath: folder), listed.count <= 10_000
            else { continue }
            names.formUnion(listed)
        }
        return names
    }

    /// An `inputs:` entry: a glob that matches no file is a warning, as a `forEach` glob's is (the command's key
    /// then holds nothing of it); a path that does not exist is an error, unless the run may make it.
    private func checkInput(
        _ entry: YAMLNode, index: Int, files: FileCollisionValidator, diagnostics: inout Diagnostics
    ) {
        guard let pattern = entry.scalar, !pattern.isEmpty, !pattern.contains("${"),
            CommandCode.matches(of: pattern, directory: directory).isEmpty
        else { return }
        let isGlob = pattern.contains { "*?[{".contains($0) }
        let absolute = CommandInvocation.absolute(NodeContext.resolve(pattern, in: directory))
        if isGlob || mayBeMade(pattern, absolute: absolute, index: index, files: files) {
            diagnostics.append(
                Diagnostic(
                    .warning, "'inputs' pattern '\(pattern)' matches no file", at: entry.location,
                    hint: "the files it names are part of the command's key; none is"))
        } else {
            diagnostics.error(
                "'inputs' file '\(pattern)' does not exist", at: entry.location,
                suggestion: sibling(of: pattern, absolute: absolute),
                hint: "paths are relative to the workflow file's folder; looked for '\(shown(pattern, in: directory))'")
        }
    }

    // MARK: paths

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    /// `path` joined to `folder` (as written) and normalised, as messages show it.
    private func shown(_ path: String, in folder: String) -> String { FilePaths.normalised(path, in: folder) }

    /// `path` as written with its last component replaced by the closest name in its folder, if one is close.
    private func sibling(of path: String, absolute: String) -> String? {
        guard let name = FetchFileReader.closestSibling(of: absolute) else { return nil }
        let folder = FilePaths.folder(of: path)
        return path.contains("/") ? (folder == "/" ? "/" : folder + "/") + name : name
    }
}
