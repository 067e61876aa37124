import Foundation
import OrderedCollections

/// Expands `uses:` tasks into the pipelines they import: each pipeline file's tasks join the workflow as a
/// group named by the `uses:` task (`thumbs.save`), their `${params.NAME}` bound by `with:`, their entry tasks
/// depending on what the `uses:` task depends on, and a dependency on the group meaning its exit tasks.
/// Pipelines may use pipelines; a file that uses itself, directly or not, is an include cycle.
struct PipelineImporter {
    /// One step of the chain of imports that led to a file: the file, and where it was imported.
    struct Link {
        var path: String
        var site: SourceLocation?
    }

    let registry: TaskRegistry
    let limits: YAMLDocument.Limits
    let environment: [String: String]
    /// The text of every imported file, for source snippets.
    private(set) var sources: [String: String] = [:]
    private(set) var diagnostics = Diagnostics()
    /// For each imported file, the import sites that led to it, innermost first, once per import.
    private(set) var importChains: [String: [[SourceLocation]]] = [:]
    /// The aliases used in imported files.
    private(set) var aliasUses: [AliasUse] = []
    /// The tasks the imports have made so far, each import counting one more: what bounds imports that
    /// multiply (a pipeline importing the next ten times, thirteen deep, is 10¹³ tasks).
    private var expandedCount = 0
    /// Set once the count passes the limit (reported once); later imports are not read.
    private var exhausted = false

    /// The most imports one workflow may make, however few tasks each holds.
    static let maxImports = 10_000
    /// The most tasks the imports may add: the planner's node limit.
    static let maxImportedTasks = ForEachExpansion.maxItems
    private var importCount = 0

    init(registry: TaskRegistry, limits: YAMLDocument.Limits, environment: [String: String]) {
        self.registry = registry
        self.limits = limits
        self.environment = environment
    }

    /// Replaces a decoded file's `uses:` tasks with the tasks of the pipelines they import.
    mutating func expand(_ workflow: inout Workflow, imports: [PipelineImport], chain: [Link]) {
        var exits: [String: [String]] = [:]
        var insertions: [(position: Int, tasks: [TaskSpec])] = []
        for entry in imports {
            guard var pipeline = load(entry, chain: chain) else { continue }
            let group = entry.id.value
            bindParams(of: &pipeline, for: entry, into: &workflow)
            let local = Set(pipeline.tasks.map(\.id.value))
            let dependedOn = Set(pipeline.tasks.flatMap { $0.dependsOn.map(\.value) })
            exits[group] = pipeline.tasks.map(\.id.value).filter { !dependedOn.contains($0) }.map { "\(group).\($0)" }
            let tasks = pipeline.tasks.map { task in
                var task = task
                let rename = { (id: Located<String>) in
                    local.contains(id.value) ? Located("\(group).\(id.value)", at: id.location) : id
                }
                task.dependsOn = task.dependsOn.isEmpty ? entry.dependsOn : task.dependsOn.map(rename)
                task.input = task.input.map(rename)
                task.id = Located("\(group).\(task.id.value)", at: task.id.location)
                task.group = task.group.map { "\(group).\($0)" } ?? group
                return task
            }
            insertions.append((entry.position, tasks))
            for (name, queue) in pipeline.queues where workflow.queues[name] == nil { workflow.queues[name] = queue }
            workflow.groups.append(TaskGroup(id: group, path: entry.path.value, location: entry.id.location))
            workflow.groups += pipeline.groups.map {
                TaskGroup(id: "\(group).\($0.id)", path: $0.path, location: $0.location)
            }
        }
        for insertion in insertions.reversed() {
            workflow.tasks.insert(contentsOf: insertion.tasks, at: min(insertion.position, workflow.tasks.count))
        }
        guard !exits.isEmpty else { return }
        // A dependency on a group is a dependency on its exit tasks, each at the place the group is named.
        for index in workflow.tasks.indices {
            workflow.tasks[index].dependsOn = workflow.tasks[index].dependsOn.flatMap { entry in
                exits[entry.value].map { $0.map { Located($0, at: entry.location) } } ?? [entry]
            }
            // `input: thumbs` reads the group's exit task, when it has one.
            if let input = workflow.tasks[index].input, let exit = exits[input.value], exit.count == 1 {
                workflow.tasks[index].input = Located(exit[0], at: input.location)
            }
        }
    }

    /// Reads, decodes and expands one imported file; `nil` (reported) when it cannot be read or is a cycle.
    private mutating func load(_ entry: PipelineImport, chain: [Link]) -> Workflow? {
        let importer = chain.last?.path ?? ""
        let folder = FilePaths.folder(of: importer)
        let path = FilePaths.normalised(entry.path.value, in: folder)
        if let start = chain.firstIndex(where: { $0.path == path }) {
            let cycle = (chain[start...].map(\.path) + [path]).joined(separator: " → ")
            diagnostics.error(
                "pipeline include cycle: \(cycle)", at: entry.path.location,
                hint: "a pipeline cannot use itself, directly or through the pipelines it uses")
            return nil
        }
        guard !exhausted else { return nil }
        importCount += 1
        guard importCount <= Self.maxImports else {
            reportExhausted(
                "the imports of this workflow number more than \(Self.maxImports)", entry: entry, path: path,
                chain: chain)
            return nil
        }
        let bytes: [UInt8]
        switch DefinitionFile.read(path) {
        case .success(let read): bytes = read
        case .failure(let failure) where failure.isMissing:
            diagnostics.error(
                "cannot read pipeline '\(entry.path.value)': no such file (looked for \(path))",
                at: entry.path.location, hint: "a pipeline's path is relative to the file that uses it")
            return nil
        case .failure(let failure):
            diagnostics.error("cannot read pipeline '\(entry.path.value)': \(failure.reason)", at: entry.path.location)
            return nil
        }
        sources[path] = String(decoding: bytes, as: UTF8.self)
        let link = Link(path: path, site: entry.path.location)
        let sites = (chain + [link]).compactMap(\.site).reversed()
        importChains[path, default: []].append(Array(sites))
        var found = Diagnostics()
        var pipeline = Workflow(path: path, directory: folder, name: entry.id.value)
        if let root = YAMLDocument.parse(
            bytes, path: path, limits: limits, diagnostics: &found, aliases: &aliasUses)
        {
            var decoder = WorkflowDecoder(registry: registry, path: path, directory: folder)
            let decoded = decoder.decode(root)
            pipeline = decoded.0
            found.append(contentsOf: decoded.1)
            expandedCount += 1 + pipeline.tasks.count
            guard expandedCount <= Self.maxImportedTasks else {
                reportExhausted(
                    "the imports of this workflow make more than \(Self.maxImportedTasks) tasks", entry: entry,
                    path: path, chain: chain)
                return nil
            }
            expand(&pipeline, imports: decoder.imports, chain: chain + [link])
        } else if !found.hasErrors {
            found.error("the pipeline is empty", at: SourceLocation(path: path, line: 1, column: 1))
        }
        // Not annotated with this import's chain: the same file imported again finds the same problems, which
        // are one each once the loader notes every import of the file (``annotated(_:path:chains:groups:)``).
        diagnostics.append(contentsOf: found)
        return pipeline
    }

    /// Reports, once, that the imports went past a limit, with the chain of imports that got there.
    private mutating func reportExhausted(_ what: String, entry: PipelineImport, path: String, chain: [Link]) {
        exhausted = true
        let imports = (chain.map(\.path) + [path]).joined(separator: " → ")
        diagnostics.error(
            "\(what), the limit: stopped at \(imports)", at: entry.path.location,
            hint: "a pipeline imported several times is copied each time, and so is everything it imports")
    }

    /// Binds a pipeline's params: `with:` values (resolved in the importing file's scope) over the pipeline's
    /// own defaults, as workflow params named under the group (`thumbs.width`).
    private mutating func bindParams(
        of pipeline: inout Workflow, for entry: PipelineImport, into workflow: inout Workflow
    ) {
        let outer = workflow.params.reduce(into: [String: Value]()) { $0[$1.key] = $1.value.value }
        var bound: [String: Located<Value>] = [:]
        let declared = pipeline.params.keys.filter { !$0.contains(".") }
        for pair in entry.with {
            let name = pair.key.scalar ?? ""
            guard pipeline.params[name] != nil, !name.contains(".") else {
                diagnostics.error(
                    "pipeline '\(entry.path.value)' has no param '\(name)'", at: pair.key.location,
                    suggestion: Suggestion.closest(to: name, in: declared),
                    hint: declared.isEmpty ? "it declares no params" : "its params: \(declared.joined(separator: ", "))"
                )
                continue
            }
            guard let value = withValue(pair.value, outer: outer, params: Array(workflow.params.keys)) else { continue }
            bound[name] = Located(value, at: pair.value.location)
        }
        for (name, value) in pipeline.params {
            workflow.params["\(entry.id.value).\(name)"] = bound[name] ?? value
        }
    }

    /// A `with:` value, its references resolved against the importing file's params and the environment.
    private mutating func withValue(_ node: YAMLNode, outer: [String: Value], params: [String]) -> Value? {
        var complete = true
        for (reference, location) in ReferenceScanner.references(in: node, diagnostics: &diagnostics) {
            switch reference {
            case .param(let name) where outer[name] == nil:
                complete = false
                diagnostics.error(
                    "unknown parameter '${params.\(name)}'", at: location,
                    suggestion: Suggestion.closest(to: name, in: params).map { "${params.\($0)}" })
            case .env(let name) where environment[name] == nil:
                complete = false
                diagnostics.error("environment variable '\(name)' is not set", at: location)
            case let item where item.needsItem:
                complete = false
                diagnostics.error(
                    "'${\(item)}' cannot be used in 'with:'", at: location,
                    hint: "with: is bound once per import; use ${item} inside the pipeline's tasks instead")
            default: break
            }
        }
        guard complete else { return nil }
        return Resolver.resolve(node, in: Scope(params: outer, environment: environment), diagnostics: &diagnostics)
    }

    /// Diagnostics of an imported file, each with the chains of imports that led to it (one per import of
    /// the file); those that already name theirs are left as they are.
    ///
    /// A mistake in a pipeline imported three times is found three times, once in each group's tasks
    /// (`thumbs.save`, `covers.save`): it is reported once, in the pipeline's own names (`save`), with a note at
    /// every import.
    /// - Parameter groups: The ids of the workflow's groups (``TaskGroup/id``), whose prefixes the repeats differ by.
    static func annotated(
        _ diagnostics: Diagnostics, path: String, chains: [[SourceLocation]], groups: [String]
    ) -> Diagnostics {
        let prefixes = groups.sorted { $0.count > $1.count }.map { "'\($0)." }
        var kept: [Diagnostic] = []
        var firstOf: [Diagnostic: Int] = [:]
        for var diagnostic in diagnostics.all {
            guard diagnostic.location?.path == path,
                !diagnostic.notes.contains(where: { $0.message.hasPrefix(importNote) })
            else {
                kept.append(diagnostic)
                continue
            }
            let local = withoutGroups(diagnostic, prefixes: prefixes)
            if let first = firstOf[local] {
                // A repeat from another import: the one kept says it in the pipeline's names.
                kept[first].message = local.message
                kept[first].suggestion = local.suggestion
                kept[first].hint = local.hint
                continue
            }
            firstOf[local] = kept.count
            diagnostic.notes += chains.joined().map { .note(importNote, at: $0) }
            kept.append(diagnostic)
        }
        var result = Diagnostics()
        for diagnostic in kept { result.append(diagnostic) }
        return result
    }

    /// A diagnostic with the group prefixes of its quoted names removed (`'thumbs.save'` → `'save'`).
    private static func withoutGroups(_ diagnostic: Diagnostic, prefixes: [String]) -> Diagnostic {
        func strip(_ text: String) -> String {
            prefixes.reduce(text) { $0.replacingOccurrences(of: $1, with: "'") }
        }
        var local = diagnostic
        local.message = strip(diagnostic.message)
        local.suggestion = diagnostic.suggestion.map { strip("'" + $0).dropFirst().description }
        local.hint = diagnostic.hint.map(strip)
        return local
    }

    private static let importNote = "in the pipeline imported here"
}
