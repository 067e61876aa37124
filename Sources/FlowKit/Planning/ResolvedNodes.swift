import FlowBasics

/// What validation resolved of each node's parameters that the store's keys need, for the tasks whose parameters
/// mention the item: the store keys every node from it instead of resolving, decoding and checking each node's
/// parameters a second time.
///
/// Kept compact: per task, its parameters that do not mention the item, canonically encoded once; per node, only
/// the canonical values of those that do, the file it writes and the local file it reads, in one byte array
/// (about 45 bytes a node for `fetch → write`). What a source file holds is not kept: its identity is taken when
/// the store decides, as a plan may run again after files changed.
package struct ResolvedNodes: Sendable {
    /// A task's parameters in key order (``NodeKeyInputs/parameters``): those the same for all its nodes with
    /// their canonical values, the others by their place in each node's bytes.
    struct Template: Sendable {
        enum Entry: Sendable {
            case shared(NodeKeyInputs.Parameter)
            case perNode(name: String, type: ParameterSpec.ValueType)
        }
        var entries: [Entry]
        /// How many ``Entry/perNode(name:)`` entries there are: each node's bytes start with that many values.
        var perNodeCount: Int
        /// The entries as a key encodes them (``NodeKeyInputs/encodeTaskFields(type:implementation:options:parameters:into:)``),
        /// made once: the shared ones whole, each run of them as one piece; of a per-node one, its name.
        var encoded: [EncodedEntry]

        enum EncodedEntry: Sendable {
            case shared([UInt8])
            case perNode(name: [UInt8])
        }

        init(entries: [Entry], perNodeCount: Int) {
            self.entries = entries
            self.perNodeCount = perNodeCount
            encoded = []
            var shared = ByteWriter()
            for entry in entries {
                switch entry {
                case .shared(let parameter):
                    shared.string(parameter.name)
                    shared.string(parameter.value)
                case .perNode(let name, _):
                    if !shared.bytes.isEmpty { encoded.append(.shared(shared.bytes)) }
                    shared.bytes.removeAll()
                    var named = ByteWriter()
                    named.string(name)
                    encoded.append(.perNode(name: named.bytes))
                }
            }
            if !shared.bytes.isEmpty { encoded.append(.shared(shared.bytes)) }
        }
    }

    /// The local file a node reads, as its type names it before anything is read (``LocalSourceFile``).
    enum Source: Equatable {
        /// It reads nothing from outside the workflow.
        case none
        /// It reads this file.
        case file(String)
        /// It reads something else (an http(s) URL, an object in a bucket): the store asks its type.
        case other
    }

    /// By task index; `nil` for a task whose nodes share their parameters (``Plan/sharedParameters``) or were
    /// not resolved one by one.
    private var templates: [Template?]
    /// Every node's bytes, one after the other: the values of its template's per-node entries, its output path
    /// and its source (``ByteWriter``).
    private var bytes: [UInt8]
    /// Where each node's bytes start, by node index, and where the last ends.
    private var starts: [UInt32]

    /// Appends the parameters of the node at `index` of task `taskIndex` as a key encodes them (their count, then
    /// each name and canonical value, ``NodeKeyInputs/encodeTaskFields(type:implementation:options:parameters:into:)``)
    /// straight from its bytes, making no string of them.
    /// - Returns: The file it writes and what it reads; `nil`, with `out` as it was, when validation kept no facts
    ///   for it.
    func encodeParameters(_ index: Int, of taskIndex: Int, into out: inout ByteWriter) -> (
        outputPath: String?, source: Source
    )? {
        guard let template = templates[taskIndex], index + 1 < starts.count else { return nil }
        let values = bytes[Int(starts[index])..<Int(starts[index + 1])]
        // A parameter without a value is left out, as resolving the node again leaves it: counted before any is
        // written.
        var reader = ByteReader(values)
        var present = template.entries.count - template.perNodeCount
        for _ in 0..<template.perNodeCount {
            guard let flag = reader.count(), flag <= 1, flag == 0 || reader.skipString() else { return nil }
            present += flag
        }
        guard let (outputPath, source) = Self.files(from: &reader) else { return nil }
        out.count(present)
        reader = ByteReader(values)
        for entry in template.encoded {
            switch entry {
            case .shared(let pairs): out.bytes.append(contentsOf: pairs)
            case .perNode(let name):
                guard reader.count() == 1, let value = reader.field() else { continue }
                out.bytes.append(contentsOf: name)
                out.count(value.count)
                out.bytes.append(contentsOf: value)
            }
        }
        return (outputPath, source)
    }

    /// The file the node at `index` writes and the local file it reads (``Source/file(_:)``), read from its bytes
    /// without its parameters; `nil` when validation kept no facts for it.
    func files(_ index: Int, of taskIndex: Int) -> (output: String?, source: String?)? {
        guard let template = templates[taskIndex], index + 1 < starts.count else { return nil }
        var reader = ByteReader(bytes[Int(starts[index])..<Int(starts[index + 1])])
        for _ in 0..<template.perNodeCount {
            guard reader.skipOptionalString() else { return nil }
        }
        guard let (outputPath, source) = Self.files(from: &reader) else { return nil }
        guard case .file(let path) = source else { return (outputPath, nil) }
        return (outputPath, path)
    }

    /// The output path and source that end a node's bytes, past its per-node values; `nil` for damage.
    private static func files(from reader: inout ByteReader) -> (outputPath: String?, source: Source)? {
        guard let outputPath = reader.optionalString(), let sourceKind = reader.count() else { return nil }
        switch sourceKind {
        case 0: return (outputPath, .none)
        case 1: return reader.string().map { (outputPath, .file($0)) }
        default: return (outputPath, .other)
        }
    }

    /// The facts of some nodes, by their new indices (``Plan/restricted(to:)``).
    func restricted(to nodes: [Int]) -> ResolvedNodes {
        var copy = self
        copy.bytes = []
        copy.starts = [0]
        copy.starts.reserveCapacity(nodes.count + 1)
        for index in nodes {
            copy.bytes.append(contentsOf: bytes[Int(starts[index])..<Int(starts[index + 1])])
            copy.starts.append(UInt32(copy.bytes.count))
        }
        return copy
    }

    /// Collects the facts node by node, as ``NodeParameterValidator`` resolves them (a class: validators read
    /// their context by value, and this is what the node checks hand to the plan).
    final class Builder {
        private var collected: Collected

        init(taskCount: Int, nodeCount: Int, directory: String) {
            collected = Collected(taskCount: taskCount, nodeCount: nodeCount, directory: directory)
        }

        /// Notes what the nodes of the task at `taskIndex` share, from its first node's `values`, before its
        /// nodes are recorded.
        func start(_ taskIndex: Int, task: TaskSpec, type: any TaskType, values: ParameterValues) {
            collected.start(taskIndex, task: task, type: type, values: values)
        }

        /// Notes a node's parameters, resolved and checked, and what they say it writes and reads (`use`, with the
        /// store's facts: ``TaskUsePlanner`` given the workflow's folder); nodes come in plan order, each after its
        /// task's ``start(_:task:type:values:)``.
        func record(node index: Int, taskIndex: Int, values: ParameterValues, use: PlannedUse) {
            collected.record(node: index, taskIndex: taskIndex, values: values, use: use)
        }

        /// The facts collected; none when there were too many to address.
        func build() -> ResolvedNodes? { collected.build() }
    }

    /// What a ``Builder`` collects, as one value: recording a node is one access to the builder's storage, not
    /// one checked access for each of its fields.
    private struct Collected {
        var templates: [Template?]
        var writer = ByteWriter()
        var starts: [UInt32]
        /// The first node whose start is not known yet: nodes not recorded (those of tasks that share their
        /// parameters) have no bytes, and start where the next recorded node does.
        var nextStart = 0
        let directory: String
        /// Set when the bytes would outgrow their 32-bit offsets: no facts are kept then.
        var overflowed = false

        init(taskCount: Int, nodeCount: Int, directory: String) {
            templates = [Template?](repeating: nil, count: taskCount)
            starts = [UInt32](repeating: 0, count: nodeCount + 1)
            self.directory = directory
        }

        /// See ``Builder/start(_:task:type:values:)``.
        mutating func start(_ taskIndex: Int, task: TaskSpec, type: any TaskType, values: ParameterValues) {
            var ignored = Diagnostics()
            var perNode: [String: ParameterSpec.ValueType] = [:]
            for spec in type.parameters {
                guard let pair = task.parameters[spec.name],
                    ReferenceScanner.references(in: pair.value, diagnostics: &ignored).contains(where: {
                        $0.0.needsItem
                    })
                else { continue }
                perNode[spec.name] = spec.type
            }
            let names = Set(values.names).union(perNode.keys).sorted()
            templates[taskIndex] = Template(
                entries: names.map { name in
                    if let valueType = perNode[name] { return .perNode(name: name, type: valueType) }
                    let value = values[name] ?? .null
                    return .shared(
                        .init(name: name, value: NodeKeyInputs.canonical(value, as: type.parameter(named: name)?.type)))
                },
                perNodeCount: perNode.count)
        }

        /// See ``Builder/record(node:taskIndex:values:use:)``.
        mutating func record(node index: Int, taskIndex: Int, values: ParameterValues, use: PlannedUse) {
            guard !overflowed, let template = templates[taskIndex] else { return }
            let start = UInt32(writer.bytes.count)
            while nextStart <= index {
                starts[nextStart] = start
                nextStart += 1
            }
            for entry in template.entries {
                guard case .perNode(let name, let valueType) = entry else { continue }
                writer.optionalString(values[name].map { NodeKeyInputs.canonical($0, as: valueType) })
            }
            writer.optionalString(use.outputPath.map { NodeContext.resolve($0, in: directory) })
            switch use.source {
            case .none: writer.count(0)
            case .file(let path):
                writer.count(1)
                writer.string(path)
            case .other: writer.count(2)
            }
            if writer.bytes.count >= UInt32.max { overflowed = true }
        }

        /// See ``Builder/build()``.
        mutating func build() -> ResolvedNodes? {
            guard !overflowed else { return nil }
            while nextStart < starts.count {
                starts[nextStart] = UInt32(writer.bytes.count)
                nextStart += 1
            }
            // Copied to their size: the writer's array grew by doubling, and the plan keeps them for the run.
            let bytes = writer.bytes.withUnsafeBufferPointer { Array($0) }
            return ResolvedNodes(templates: templates, bytes: bytes, starts: starts)
        }
    }
}
