extension UpToDate {
    /// One pass of the decisions over the nodes the store keeps results of (all but a ``StatelessTask``'s), in
    /// reverse plan order, so every node is decided after the nodes that read its output.
    ///
    /// Each node gets its ``RunPolicy`` and its ``RecordCheck``; a node that is up to date but whose output a
    /// running reader needs is then restored from its stored output, when that is intact and was made for the
    /// same consumers (asked of a ``BlobCheck``, which may only learn the answer for the next pass).
    struct KeptDecisions {
        /// Why each node runs; `nil` for one that is up to date, and for every stateless node.
        private(set) var causes: [RunCause?]
        /// The store's record of each node, where a decision used one.
        private(set) var records: Records
        /// The nodes restored for their readers, ascending.
        private(set) var restored: [Int] = []
        /// Stored outputs found unusable, one line each, in plan order.
        private(set) var unusable: [String] = []
        /// The nodes that run every time (``TaskFacts/runsEveryTime``), ascending: their dependents are keyed by
        /// the digest of what they made.
        private(set) var runEveryTime: [Int] = []
        /// The nodes skipped for a skip the store recorded with their key: those the pass was given, which it
        /// leaves undecided (up to date), and those it found, whose dependents it had decided before it knew.
        private(set) var skips: SettledSkips

        /// Decides every kept node of a plan.
        /// - Parameters:
        ///   - plan: The plan.
        ///   - tasks: The facts of its tasks.
        ///   - keys: Every node's key (``NodeKeys``).
        ///   - records: Each node's own latest record in the store.
        ///   - settings: What the run asks.
        ///   - rerunBy: For each node, the task `--rerun` named that makes it run (``rerunBy(_:tasks:rerun:)``);
        ///     empty without `--rerun`.
        ///   - blobs: The blobs checked so far; those asked about and not checked yet are noted in it.
        ///   - stamps: Where the stamps of written files are read.
        ///   - skips: The skips an earlier pass found: their nodes are not decided again.
        init(
            plan: Plan, tasks: [TaskFacts], keys: NodeKeys, records ownRecords: Records, settings: Settings,
            rerunBy: [String?], blobs: inout BlobCheck, stamps: FileStamps = FileStamps(),
            skips known: SettledSkips = SettledSkips()
        ) {
            causes = [RunCause?](repeating: nil, count: plan.nodes.count)
            records = ownRecords
            skips = known
            var found: [(node: Int, cause: String)] = []
            let graph = plan.graph
            for index in plan.nodes.indices.reversed() {
                // Keyed: every node but a stateless task's is.
                guard let key = keys.keys[index] else { continue }
                let task = tasks[plan.nodes[index].taskIndex]
                guard !task.keepsNothing else { continue }
                if !known.isEmpty, known.contains(index) { continue }
                var isRead = false
                var reader: Int?
                graph.forEachDependent(of: index) { dependent in
                    guard tasks[plan.nodes[dependent].taskIndex].readsInput else { return }
                    isRead = true
                    if reader == nil, causes[dependent] != nil { reader = dependent }
                }
                // Found by key (an item that moved, a result another node made): the same work. A cold store has
                // no record to look up.
                if !records.isEmpty, records.key(of: index) != key, let found = settings.recordWithKey?(key) {
                    records.serve(index, with: found)
                }
                let readBack = settings.readValues.contains(index)
                let policy = RunPolicy(
                    force: settings.force, rerunBy: rerunBy.isEmpty ? nil : rerunBy[index],
                    unverifiableSource: keys.unverifiableSources[index], cache: readBack ? .enabled : task.cache,
                    cachedByDefault: readBack || task.cachedByDefault)
                if let cause = policy.cause {
                    causes[index] = cause
                } else {
                    var check = RecordCheck(
                        inputs: keys.inputs.encoded(index).map { .encoded($0) }, key: key,
                        outputPath: keys.outputPaths[index], isRead: isRead,
                        runningReader: reader.map { plan.nodes[$0].id }, recordedUntil: settings.recordedUntil,
                        stamps: stamps, node: index, providesFile: task.kind.providesFile,
                        restoredFile: !settings.restoredFiles.isEmpty && settings.restoredFiles.contains(index))
                    // Decoded only where the check reads it.
                    if !check.isJudgedByReaders { check.record = records[index] }
                    if let record = check.record, record.key == key, let skipped = record.skipped {
                        // It skipped itself for this key: it skips again, unless what it reads may change in the run.
                        if SettledSkips.isBelowAnUnrepeatableNode(index, of: plan, tasks: tasks) {
                            causes[index] = .notCached(
                                "skipped last run (\(skipped)), below a node that runs every time: decided again")
                        } else {
                            found.append((index, skipped))
                        }
                        continue
                    }
                    causes[index] = check.cause
                    if causes[index] == .noRecord, !settings.failedLastRun.isEmpty,
                        let failure = settings.failedLastRun[plan.nodes[index].id]
                    {
                        causes[index] = .failedLastRun(failure)
                    }
                    if case .upstreamChanged(let node)? = causes[index],
                        let change = inputChange(index, from: node, of: plan, tasks: tasks, keys: keys.keys)
                    {
                        causes[index] = change
                    }
                }
                if task.runsEveryTime { runEveryTime.append(index) }
                if causes[index] == nil, task.kind.providesFile {
                    serveRecordedFile(index, of: plan, tasks: tasks, path: keys.outputPaths[index])
                }
                guard settings.blobs != nil, let valueType = task.valueType else { continue }
                decideStoredOutput(index, of: plan, task: task, as: valueType, settings: settings, blobs: &blobs)
            }
            restored.reverse()
            unusable.reverse()
            runEveryTime.reverse()
            // Their dependents were decided first, as nodes that run: they are skipped with them instead (a pass
            // that knows them from the start decides what those dependents read too).
            for (node, cause) in found { skips.add(node, cause: cause, of: plan) }
            for node in skips.nodes { causes[node] = nil }
        }

        /// The cause of a node whose input from a node that runs every time changed: that node's output, by its
        /// digest as recorded with each (``UpToDate/keyedByOutput``); `nil` when the upstream node is not one, or
        /// has no recorded output.
        private func inputChange(
            _ index: Int, from node: String, of plan: Plan, tasks: [TaskFacts], keys: [NodeKey?]
        ) -> RunCause? {
            var change: RunCause?
            plan.graph.forEachDependency(of: index) { dependency in
                guard change == nil, plan.nodes[dependency].id == node,
                    tasks[plan.nodes[dependency].taskIndex].runsEveryTime, let now = keys[dependency],
                    records.key(of: dependency) == now,
                    let before = records[index]?.inputs?.upstream.first(where: { $0.node == node })?.key
                else { return }
                change = .inputChanged(node: node, from: before, to: now)
            }
            return change
        }

        /// Serves the file an up-to-date node wrote to the nodes after it that run and name it (a `command`'s
        /// `${inputs}`): it is restored from its record — its file or object, as recorded and found intact — rather than
        /// left without an operation, which would give them nothing. A node that reads nothing of it needs nothing.
        private mutating func serveRecordedFile(_ index: Int, of plan: Plan, tasks: [TaskFacts], path: String?) {
            var served = false
            plan.graph.forEachDependent(of: index) { dependent in
                let reader = tasks[plan.nodes[dependent].taskIndex]
                if causes[dependent] != nil, reader.readsInputFiles || reader.readsInput { served = true }
            }
            // Whatever its storage: an object in a bucket the write recorded serves as a file does.
            guard served, let path, records[index]?.output?.path == path else { return }
            restored.append(index)
        }

        /// Turns a node that runs only because a running reader needs its output into one restored from the
        /// store, when its stored output serves; and makes a value the gather phase reads run when the store no
        /// longer holds it.
        private mutating func decideStoredOutput(
            _ index: Int, of plan: Plan, task: TaskFacts, as valueType: any StorableOutput.Type, settings: Settings,
            blobs: inout BlobCheck
        ) {
            let id = plan.nodes[index].id
            if case .neededBy? = causes[index], let blob = records[index]?.blob {
                let current = task.type.outputVariant(
                    facts: blob.facts, consumers: plan.consumers(of: index), optimize: settings.optimize)
                if current != blob.variant {
                    causes[index] = .storedForOtherConsumers(from: blob.variant, to: current)
                } else if let problem = blobs.problem(with: blob, as: valueType) {
                    causes[index] = .storedOutputUnusable(problem)
                    unusable.append("\(id): \(problem)")
                } else {
                    causes[index] = nil
                    restored.append(index)
                }
            } else if causes[index] == nil, settings.keepValues.contains(index) {
                // A value the gather phase reads is up to date only while the store still holds it.
                if let blob = records[index]?.blob {
                    if let problem = blobs.problem(with: blob, as: valueType) {
                        causes[index] = .storedOutputUnusable(problem)
                        unusable.append("\(id): \(problem)")
                    }
                } else {
                    causes[index] = .storedOutputUnusable("no value stored for the gather phase, which reads it")
                }
            }
        }

        /// For each node, the task `--rerun` named that it is, or is downstream of (in plan order: the first
        /// dependency's wins); empty without `--rerun`.
        static func rerunBy(_ plan: Plan, tasks: [TaskFacts], rerun: Set<String>) -> [String?] {
            guard !rerun.isEmpty else { return [] }
            var rerunBy = [String?](repeating: nil, count: plan.nodes.count)
            for (index, node) in plan.nodes.enumerated() {
                let task = tasks[node.taskIndex]
                if rerun.contains(task.id) {
                    rerunBy[index] = task.id
                } else {
                    plan.graph.forEachDependency(of: index) {
                        if rerunBy[index] == nil { rerunBy[index] = rerunBy[$0] }
                    }
                }
            }
            return rerunBy
        }
    }
}
