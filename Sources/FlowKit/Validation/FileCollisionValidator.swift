import Foundation

/// Finds nodes that would write one file, and writes to a file the workflow reads — an input of a node, or a
/// file the workflow is made of (itself, its pipelines, its `forEach` lists, its env files, its store): either
/// way a run would silently replace a file it depends on. Fed node by node by ``NodeParameterValidator``,
/// which resolves the parameters that name the files.
///
/// A node that reads a file written by a node it depends on (directly or further up) reads it once written:
/// that is the workflow using its own output (a `fetch` of what a `write` made), not replacing an input.
struct FileCollisionValidator {
    /// One node's use of one file: eight bytes, as a 100,000-item plan keeps one for every file its nodes name.
    /// Where it is written is its task's (``location(of:)``).
    private struct Use {
        var node: UInt32
        /// The parameter naming the file, by its place in ``parameterNames``.
        var parameter: UInt32

        var index: Int { Int(node) }
    }

    /// Collisions between the nodes of two tasks, reported one by one up to a few, then counted.
    private struct TaskPair: Hashable {
        var first: Int
        var second: Int
    }

    /// How many collisions between the same two tasks are spelt out before the rest are counted.
    static let shownPerTaskPair = 5

    private let nodes: [PlannedNode]
    private let graph: NodeGraph
    private let workflow: Workflow
    private var writers: [String: Use] = [:]
    private var readers: [String: Use] = [:]
    /// The readers of a file after its first, rarely any: each must wait for a node that writes it.
    private var laterReaders: [String: [Use]] = [:]
    private var pendingWrites: [(key: String, path: String, use: Use)] = []
    /// The names of the parameters that name files, each once.
    private var parameterNames: [String] = []
    private var parameterNumbers: [String: UInt32] = [:]
    /// The workflow's folder as an absolute path, made once: keys are relative to it (``key(of:)``).
    private let base: String
    /// ``base`` with a slash after it: what the paths inside the folder start with.
    private let basePrefix: String
    private var reported: [TaskPair: (count: Int, firstUnshown: SourceLocation?)] = [:]
    /// The files the workflow is made of, by key, with what each is (for messages).
    private let definitions: [String: String]
    /// The default store's folder, by key: nothing of it is an output.
    private let store: String
    /// ``store`` with a slash after it: what the keys of the files in it start with.
    private let storePrefix: String

    init(nodes: [PlannedNode], graph: NodeGraph, workflow: Workflow) {
        self.nodes = nodes
        self.graph = graph
        self.workflow = workflow
        let base = FilePaths.key(of: ".", in: workflow.directory)
        let basePrefix = base.hasSuffix("/") ? base : base + "/"
        self.base = base
        self.basePrefix = basePrefix
        func key(_ absolute: String) -> String { Self.key(ofAbsolute: absolute, base: base, basePrefix: basePrefix) }
        var definitions: [String: String] = [:]
        for path in workflow.definitionFiles {
            definitions[key(FilePaths.key(of: path, in: "."))] =
                path == workflow.path ? "the workflow file" : "a file the workflow is loaded from"
        }
        for task in workflow.tasks {
            if case .file(let list) = task.forEach, !list.value.contains("${") {
                definitions[key(FilePaths.normalised(list.value, in: base))] = "the forEach list of '\(task.id.value)'"
            }
        }
        self.definitions = definitions
        store = key(FilePaths.normalised(".flowrun", in: base))
        storePrefix = store + "/"
    }

    /// Makes room for `count` more nodes that each use as many files as `access`: the paths of a task's 100,000
    /// nodes are hashed once, not again each time the tables grow.
    mutating func reserve(_ count: Int, like access: FileAccess) {
        readers.makeRoom(for: count * access.reads.count)
        writers.makeRoom(for: count * access.writes.count)
        pendingWrites.makeRoom(for: count * access.writes.count)
    }

    /// Records the files of one node.
    mutating func record(
        _ access: FileAccess, of node: Int, diagnostics: inout Diagnostics
    ) {
        for file in access.reads {
            let key = key(of: file.path)
            // The first reader is kept: put back when there was one.
            let use = Use(node: UInt32(node), parameter: number(of: file.parameter))
            if let first = readers.updateValue(use, forKey: key) {
                readers[key] = first
                if first.node != use.node { laterReaders[key, default: []].append(use) }
            }
        }
        for file in access.writes {
            let key = key(of: file.path)
            let use = Use(node: UInt32(node), parameter: number(of: file.parameter))
            if let role = definitions[key] ?? (key == store || key.hasPrefix(storePrefix) ? "inside the store" : nil) {
                diagnostics.error(
                    "'\(id(node))' writes '\(shown(file.path))', which is \(role)",
                    at: location(of: use),
                    hint: "write outputs to another folder: the run would replace a file it is made of")
                continue
            }
            pendingWrites.append((key, file.path, use))
            guard let first = writers.updateValue(use, forKey: key) else { continue }
            // Named by their content, they collide only when the content is the same: the run refuses the second.
            if OutputHash.isPattern(file.path) {
                writers[key] = first
                continue
            }
            writers[key] = first
            reportCollision(first, use, display: shown(file.path), diagnostics: &diagnostics)
        }
    }

    /// Whether a node writes the file at `path` (relative to the workflow's folder, or absolute), as recorded so far.
    func writes(_ path: String) -> Bool { writers[key(of: path)] != nil }

    /// Reports writes to files the workflow reads (a read may be recorded after the write that replaces it)
    /// and the count of collisions not spelt out.
    mutating func finish(diagnostics: inout Diagnostics) {
        var upstream: [Int: Set<Int>] = [:]
        for write in pendingWrites {
            guard let first = readers[write.key] else { continue }
            // The first reader that does not wait for the write: it would read the file while it is replaced.
            let unordered = ([first] + (laterReaders[write.key] ?? [])).first { reader in
                guard reader.node != write.use.node else { return false }
                let above = upstream[reader.index] ?? ancestors(of: reader.index)
                upstream[reader.index] = above
                return !above.contains(write.use.index)
            }
            guard let reader = unordered else { continue }
            diagnostics.error(
                "'\(id(write.use.index))' writes '\(shown(write.path))', which '\(id(reader.index))' reads",
                at: location(of: write.use),
                hint: "write outputs to another folder: the run would replace one of its own inputs",
                notes: [.note("'\(id(reader.index))' reads it here", at: location(of: reader))])
        }
        pendingWrites = []
        for (pair, tally) in reported.sorted(by: { ($0.key.first, $0.key.second) < ($1.key.first, $1.key.second) })
        where tally.count > Self.shownPerTaskPair {
            let first = workflow.tasks[pair.first]
            let second = workflow.tasks[pair.second]
            let between =
                pair.first == pair.second
                ? "between the nodes of '\(first.id.value)'" : "between '\(first.id.value)' and '\(second.id.value)'"
            diagnostics.error(
                "\(tally.count - Self.shownPerTaskPair) more nodes write a file already written \(between)",
                at: tally.firstUnshown ?? second.id.location)
        }
    }

    /// Every node `node` waits for, directly or further up: found once per reader (a gather reader's are all its
    /// items), so a reader of many outputs costs one walk.
    private func ancestors(of node: Int) -> Set<Int> {
        var found: Set<Int> = []
        var pending = [node]
        while let next = pending.popLast() {
            graph.forEachDependency(of: next) { dependency in
                if found.insert(dependency).inserted { pending.append(dependency) }
            }
        }
        return found
    }

    private mutating func reportCollision(_ first: Use, _ second: Use, display: String, diagnostics: inout Diagnostics)
    {
        let pair = TaskPair(first: nodes[first.index].taskIndex, second: nodes[second.index].taskIndex)
        var tally = reported[pair] ?? (0, nil)
        tally.count += 1
        if tally.count == Self.shownPerTaskPair + 1 { tally.firstUnshown = parameterLocation(of: second) }
        reported[pair] = tally
        guard tally.count <= Self.shownPerTaskPair else { return }
        let sameTask = pair.first == pair.second
        let hint =
            sameTask
            ? sameItemHint(nodes[first.index], nodes[second.index])
            : "give one of the two tasks another path"
        diagnostics.error(
            "'\(id(second.index))' and '\(id(first.index))' both write '\(display)'; one file would replace the other",
            at: location(of: second), hint: hint,
            notes: sameTask ? [] : [.note("'\(id(first.index))' writes it here", at: parameterLocation(of: first))])
    }

    /// How two items of one task get paths of their own. Two files with one `${item.stem}` — `fig.jpg` and its edit
    /// `fig.png` in one folder, or two albums' `IMG_0001.JPG` — are told apart by the part of their paths that
    /// differs, which the hint names.
    private func sameItemHint(_ first: PlannedNode, _ second: PlannedNode) -> String {
        guard first.itemBase != nil, second.itemBase != nil, let one = first.item?.description,
            let other = second.item?.description, Resolver.stem(of: one) == Resolver.stem(of: other)
        else { return "give each item its own path: add ${item.index}, or a key of map items such as ${item.name}" }
        let differing =
            FilePaths.folder(of: one) == FilePaths.folder(of: other)
            ? "keep the extension with ${item.ext} or ${item.name}" : "keep the folders with ${item.dir} or ${item.rel}"
        return "'\(one)' and '\(other)' have one ${item.stem}: \(differing)"
    }

    private func id(_ node: Int) -> String { nodes[node].id }
    /// A path as messages show it: joined to the workflow's folder as given, normalised.
    private func shown(_ path: String) -> String { FilePaths.normalised(path, in: workflow.directory) }
    /// Where the parameter naming a use's file is written, if it is (a defaulted one is not).
    private func parameterLocation(of use: Use) -> SourceLocation? {
        workflow.tasks[nodes[use.index].taskIndex].parameters[parameterNames[Int(use.parameter)]]?.value.location
    }
    /// Where to point at a use: its parameter, else its task.
    private func location(of use: Use) -> SourceLocation {
        parameterLocation(of: use) ?? workflow.tasks[nodes[use.index].taskIndex].id.location
    }

    /// What a file is known by: its path joined to the workflow's folder and normalised, then taken relative to
    /// the folder when it is inside it. One file has one key however it is written; the files of a workflow's
    /// own folders get short keys, taken as written when they are already normal, hashed and compared without
    /// an absolute path made for each.
    private func key(of path: String) -> String {
        if !path.hasPrefix("/"), FilePaths.isNormal(path) { return path }
        return Self.key(ofAbsolute: FilePaths.normalised(path, in: base), base: base, basePrefix: basePrefix)
    }

    /// ``key(of:)`` of a path already joined and normalised: inside the folder, the part after `basePrefix`
    /// (cut at its bytes, as a path written relative to the folder reads); the folder itself is `.`.
    private static func key(ofAbsolute path: String, base: String, basePrefix: String) -> String {
        if path.utf8.elementsEqual(base.utf8) { return "." }
        guard path.utf8.starts(with: basePrefix.utf8) else { return path }
        return String(decoding: path.utf8.dropFirst(basePrefix.utf8.count), as: UTF8.self)
    }

    private mutating func number(of parameter: String) -> UInt32 {
        if let known = parameterNumbers[parameter] { return known }
        let number = UInt32(parameterNames.count)
        parameterNames.append(parameter)
        parameterNumbers[parameter] = number
        return number
    }
}

extension Dictionary {
    /// Room for `more` entries, growing at least twofold: a workflow of many small tasks, each making room for
    /// its own, is not rehashed once per task.
    fileprivate mutating func makeRoom(for more: Int) {
        let needed = count + more
        if capacity < needed { reserveCapacity(Swift.max(needed, 2 * capacity)) }
    }
}

extension Array {
    /// Room for `more` elements, growing at least twofold, as ``Dictionary/makeRoom(for:)``.
    fileprivate mutating func makeRoom(for more: Int) {
        let needed = count + more
        if capacity < needed { reserveCapacity(Swift.max(needed, 2 * capacity)) }
    }
}
