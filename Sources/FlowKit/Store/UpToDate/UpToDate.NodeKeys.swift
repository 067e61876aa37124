import Crypto
import FlowBasics
import Foundation

extension UpToDate {
    /// The first step of the decisions: every node's key, from its task, its parameters, its source and its
    /// dependencies' keys, computed in plan order (every node after its dependencies).
    ///
    /// It decides nothing. What it finds besides the keys — the file each node writes, the sources that cannot be
    /// checked ahead — is what the decisions then read.
    struct NodeKeys {
        /// What went into each node's key, by node index, where the node's own latest record has another key (or
        /// none): a node whose record has its key was made of the same inputs, which the record holds, so an
        /// unchanged rerun keeps none of them (``UpToDate/inputs(of:)``).
        var inputs: KeyInputsByNode
        /// Each node's key; `nil` for a node of a ``StatelessTask`` that no kept node depends on.
        var keys: [NodeKey?]
        /// The file each node writes, resolved against the workflow's folder; for a path named by its content
        /// (``OutputHash``), the name its own latest record wrote while that is the pattern's, else the pattern.
        var outputPaths: [String?]
        /// The paths named by their content, by node index, with their placeholder (sparse).
        var hashedOutputs: [Int: String] = [:]
        /// For each node whose source changes every run (an http(s) URL not revalidated), that source: the node
        /// gets a key of this run only, so it runs, and everything downstream with it.
        var unverifiableSources: [String?]
        /// In a dry run that asked no server, the nodes keyed by a recorded source version (``UncheckedSource``)
        /// and every node downstream of one, each with the index of the first such source's node.
        var awaitingConfirmation: [Int: Int] = [:]
        /// The source nodes (without dependencies) whose source cannot be checked ahead and was not revalidated,
        /// ascending: the only nodes ``SourceRevalidation`` asks about, so a plan of local files asks nothing.
        var unverifiedSourceNodes: [Int] = []

        /// Keys every node of a plan that needs one.
        /// - Parameters:
        ///   - plan: The plan.
        ///   - tasks: The facts of its tasks (``TaskFacts/of(_:options:)``), the run options in every key among them.
        ///   - keepsNothing: Whether each node is of a ``StatelessTask``.
        ///   - revalidated: The identities sources have now, where ``SourceRevalidation`` could ask.
        ///   - records: Each node's own latest record in the store (none found by key yet): a node whose record
        ///     has its key keeps no inputs, and a dry run keys a source it did not ask about by the version
        ///     recorded there.
        ///   - dryRun: How a dry run keys the sources that cannot be checked ahead; `nil` for a run.
        ///   - stamps: Where the stamps of local sources are read.
        init(
            plan: Plan, tasks: [TaskFacts], keepsNothing: [Bool], revalidated: [Int: SourceIdentity],
            records: Records = Records(), dryRun: DryRun? = nil,
            stamps: FileStamps = FileStamps()
        ) {
            let count = plan.nodes.count
            let graph = plan.graph
            let resolvedNodes = plan.resolvedNodes
            let keyed = Self.keyed(plan, keepsNothing: keepsNothing)
            let runNonce = UUID().uuidString
            inputs = KeyInputsByNode(count: count)
            keys = []
            outputPaths = []
            unverifiableSources = [String?](repeating: nil, count: count)
            keys.reserveCapacity(count)
            outputPaths.reserveCapacity(count)
            var scratch = ByteWriter()
            // Only the keys upstream go into a key; the ids with them only into the inputs of a node that changed.
            var upstreamKeys: [NodeKey] = []
            var upstream: [NodeKeyInputs.Upstream] = []
            for index in plan.nodes.indices {
                if !awaitingConfirmation.isEmpty {
                    graph.forEachDependency(of: index) { dependency in
                        if awaitingConfirmation[index] == nil, let source = awaitingConfirmation[dependency] {
                            awaitingConfirmation[index] = source
                        }
                    }
                }
                guard keyed[index] else {
                    keys.append(nil)
                    outputPaths.append(nil)
                    continue
                }
                // Fields read in place: copying a node would take and drop a reference to each of its strings.
                let taskIndex = plan.nodes[index].taskIndex
                let task = tasks[taskIndex]
                // Parameters that do not depend on the item are resolved, encoded and identified once per task.
                let resolved =
                    task.sharedParameters
                    ?? resolvedNodes.flatMap { resolvedNodes in
                        task.resolve(
                            index, in: resolvedNodes, stamp: { stamps.stamp(ofRegularFile: $0, node: index)?.stamp },
                            parameters: { plan.parameters(of: plan.nodes[index]) })
                    } ?? task.resolve(plan.parameters(of: plan.nodes[index]))
                let source = revalidated[index] ?? resolved.source
                var keyedSource = source?.description
                if let source, source.changesEveryRun {
                    let isSourceNode = graph.dependencyCount(of: index) == 0
                    if isSourceNode { unverifiedSourceNodes.append(index) }
                    let unchecked = UncheckedSource(
                        source, recorded: dryRun == nil ? nil : records[index]?.inputs?.source,
                        isSourceNode: isSourceNode, dryRun: dryRun, runNonce: runNonce)
                    keyedSource = unchecked.keyed
                    unverifiableSources[index] = unchecked.unverifiable
                    if unchecked.awaitsConfirmation { awaitingConfirmation[index] = index }
                }
                upstreamKeys.removeAll(keepingCapacity: true)
                graph.forEachDependency(of: index) { dependency in
                    // Keyed: a keyed node's dependencies are (``keyed(_:keepsNothing:)``).
                    if let key = keys[dependency] { upstreamKeys.append(key) }
                }
                var key = NodeKeyInputs.key(
                    after: resolved.keyPrefix, upstream: upstreamKeys, source: keyedSource, encodingIn: &scratch)
                if let source, source.stampedFile != nil, let recorded = records.key(of: index), recorded != key,
                    let unchanged = Self.sameContent(
                        source, as: records[index]?.sourceFile, recorded: recorded,
                        key: {
                            var scratch = ByteWriter()
                            return NodeKeyInputs.key(
                                after: resolved.keyPrefix, upstream: upstreamKeys, source: $0, encodingIn: &scratch)
                        })
                {
                    key = recorded
                    keyedSource = unchanged.description
                }
                // A node that runs every time is known to its dependents by the digest of what it made last
                // (``UpToDate/keyedByOutput``), which its record holds as its key; with none, by a key of this run
                // only, so they run. Its inputs are kept: its record's are of its last run.
                let runsEveryTime = task.runsEveryTime
                if runsEveryTime {
                    key = records.key(of: index) ?? Self.unrecordedOutputKey(index, runNonce: runNonce)
                }
                keys.append(key)
                if runsEveryTime || records.key(of: index) != key {
                    upstream.removeAll(keepingCapacity: true)
                    graph.forEachDependency(of: index) { dependency in
                        if let key = keys[dependency] {
                            upstream.append(.init(node: plan.nodes[dependency].id, key: key))
                        }
                    }
                    inputs.set(index) { encoded in
                        NodeKeyInputs.encode(
                            taskFields: resolved.taskFields, upstream: upstream, source: keyedSource, into: &encoded)
                    }
                }
                if let pattern = resolved.outputPath, OutputHash.isPattern(pattern) {
                    hashedOutputs[index] = pattern
                    // The file the record names is the one the checks and the nodes after it look at.
                    if let written = records[index]?.output?.path, OutputHash.matches(pattern, written) {
                        outputPaths.append(written)
                        continue
                    }
                }
                outputPaths.append(resolved.outputPath)
            }
        }

        /// The identity a local source had when its node last read it, when its stamp changed since but not its
        /// content, and the key made with that identity is the recorded one (nothing else changed): the node
        /// keeps its key and everything downstream stays up to date. `nil` otherwise, without reading the file
        /// unless only the stamp differs.
        ///
        /// A fresh checkout gives every file a new mtime and inode: its unchanged sources are read once here,
        /// where a key by stamp alone would run the whole workflow again.
        static func sameContent(
            _ source: SourceIdentity, as read: SourceFileRecord?, recorded: NodeKey, key: (String) -> NodeKey
        ) -> SourceIdentity? {
            guard let read, let current = source.stampedFile, current.stamp != read.stamp,
                current.stamp.size == read.stamp.size, let identity = source.withStamp(read.stamp),
                key(identity.description) == recorded,
                let file = ContentDigest.stampedFile(atPath: current.path), NodeKey(file.sha256) == read.sha256
            else { return nil }
            return identity
        }

        /// The key a node that runs every time and has no recorded output is known by to its dependents: of this
        /// run only.
        static func unrecordedOutputKey(_ index: Int, runNonce: String) -> NodeKey {
            NodeKey(SHA256.hash(data: Data("flowrun-unrecorded-output \(runNonce) \(index)".utf8)))
        }

        /// Which nodes get a key: all but those of a ``StatelessTask`` that no keyed node depends on (decided in
        /// reverse plan order: dependents first).
        static func keyed(_ plan: Plan, keepsNothing: [Bool]) -> [Bool] {
            guard keepsNothing.contains(true) else { return [Bool](repeating: true, count: keepsNothing.count) }
            var keyed = keepsNothing.map { !$0 }
            for index in plan.nodes.indices.reversed() where keyed[index] {
                plan.graph.forEachDependency(of: index) { keyed[$0] = true }
            }
            return keyed
        }
    }
}
