import Foundation

/// A run whose `forEach` lists are made at run time (`forEach: { from: TASK }`), in two phases: first the
/// producers and what they depend on, through the store like any run (a producer up to date replays the output
/// it recorded); then, with the lists they printed, the whole plan again, where those nodes keep the outcomes of
/// the first phase and each item's nodes are known — and found in the store — by `task[KEY]`. A part of a split
/// run records the first phase in the lists step's journal and runs its own part of the second
/// (`RunTimeLists+Split`).
struct RunTimeLists {
    let plan: Plan
    /// The session's options, its store a local folder (a bucket store is pulled into one first).
    let options: SessionOptions
    /// With a store in a bucket, where the second phase publishes the run's records at its end.
    var bucket: (store: BucketStore, workflowPath: String)? = nil

    /// Whether a plan has a list made at run time.
    static func occur(in plan: Plan) -> Bool {
        plan.workflow.tasks.contains { $0.forEach?.producer != nil }
    }

    /// Runs the first phase and prepares the second.
    /// - Throws: ``SessionError`` as ``RunSession/prepare()`` does, for either phase.
    func prepare() throws(SessionError) -> PreparedRun {
        if options.part == .gather { return try prepareGather() }
        let producers = producerNodes()
        let first = firstPhaseNodes(producers: producers.values)
        let position = Dictionary(uniqueKeysWithValues: first.enumerated().map { ($1, $0) })
        let streamed = streamingFanOut(producers)
        var (firstReport, outputs, started) = try runFirstPhase(
            first, producers: producers, position: position, streaming: streamed)

        var lists: [Int: [ForEachItem]] = [:]
        var duplicates: [Int: [Int: RunTimeItems.Duplicate]] = [:]
        var listFailures: [String: NodeFailure] = [:]
        for (fanOut, producer) in producers {
            guard let at = position[producer], firstReport.nodes[at].status.isDone else { continue }
            let spec = plan.workflow.tasks[fanOut].forEach
            let producerNode = plan.nodes[producer]
            let bytes = (outputs[at] as? DataPayload)?.bytes ?? Data()
            switch RunTimeItems.items(of: bytes, keyField: spec?.keyField) {
            case .success(let list):
                lists[fanOut] = list.items
                duplicates[fanOut] = list.duplicates
            case .failure(let problem):
                listFailures[producerNode.id] = NodeFailure(
                    .invalidInput,
                    "its output is not the list of '\(plan.workflow.tasks[fanOut].id.value)': \(problem.message)",
                    node: producerNode.id, location: spec?.location)
            }
        }
        firstReport = Self.marking(firstReport, failed: listFailures)
        // Items that started while their producer ran keep their results, whatever became of the rest of the list.
        var incompleteList: String?
        if let fanOut = streamed, let started, !started.reports.isEmpty, lists[fanOut] == nil,
            let at = producers[fanOut].flatMap({ position[$0] })
        {
            let producer = firstReport.nodes[at]
            incompleteList = "'\(producer.id)' \(producer.status.rawValue)" + (producer.cause.map { ": \($0)" } ?? "")
            lists[fanOut] = started.list.items
            duplicates[fanOut] = started.list.duplicates
        }
        // A first phase that was interrupted, or failed fast, starts nothing more: the second runs none of its own.
        let failsFast = options.run.failFast ?? plan.workflow.failFast
        let stopsHere = firstReport.interrupted || (failsFast && firstReport.exitCode != 0) || options.part == .lists
        let second: Plan
        let part: SessionPart
        do {
            second = stopsHere ? try alreadyRun(first, started: started, lists: lists) : try replanned(with: lists)
            part = try secondPart(of: second)
        } catch {
            started?.store?.close()  // what the batches recorded is kept
            throw error
        }
        let emptyLists = Set(lists.lazy.filter { $0.value.isEmpty }.map(\.key))
        lists.removeAll()  // the plan has the items now
        var earlier: [Int: Result<any Sendable, NodeFailure>] = [:]
        var records: [Int: Int] = [:]
        let firstIDs = Dictionary(uniqueKeysWithValues: first.enumerated().map { (plan.nodes[$1].id, $0) })
        for (index, node) in part.plan.nodes.enumerated() {
            guard let at = firstIDs[node.id] else { continue }
            records[index] = at
            let record = firstReport.nodes[at]
            earlier[index] =
                record.status.isDone
                ? .success(outputs[at] ?? DataPayload(Data(), source: node.id))
                : .failure(
                    listFailures[node.id]
                        ?? NodeFailure(.upstream, record.cause ?? "\(record.status.rawValue)", node: node.id))
        }
        // Decided over the whole list, so a shard fails the same items as a whole run would.
        let itemFaults = RunTimeItemFaults(plan: second).failures(duplicates: duplicates)
        if !itemFaults.isEmpty {
            let partIndex = Dictionary(uniqueKeysWithValues: part.plan.nodes.enumerated().map { ($1.id, $0) })
            for (index, failure) in itemFaults {
                if let at = partIndex[second.nodes[index].id] { earlier[at] = .failure(failure) }
            }
        }
        var skipping = Self.gathersOverNoItems(part.plan, emptyLists: emptyLists)
        var earlierRecords = records.mapValues { RunReport.EarlierRecord(report: 0, at: $0) }
        var settled = Set<Int>()
        if let started {
            let read = streamed.map(tasksReadAfterItems(fanOut:)) ?? []
            for (index, node) in part.plan.nodes.enumerated() {
                guard let record = started.records[node.id] else { continue }
                // The first phase's report comes before the batches'.
                earlierRecords[index] = RunReport.EarlierRecord(report: record.report + 1, at: record.at)
                // Only what a gather reads is restored; the others end at once, their records from their batch.
                guard read.contains(node.taskIndex) else {
                    settled.insert(index)
                    continue
                }
                let ran = started.reports[record.report].nodes[record.at]
                earlier[index] =
                    ran.status.isDone
                    ? .success(started.outputs[node.id] ?? DataPayload(Data(), source: node.id))
                    : .failure(NodeFailure(.upstream, ran.cause ?? "\(ran.status.rawValue)", node: node.id))
            }
            if let fanOut = streamed, let incompleteList {
                skipping.merge(
                    Self.skippedAfterIncompleteList(
                        part.plan, fanOut: fanOut, started: started, failure: incompleteList
                    )
                    .filter { earlier[$0.key] == nil }  // an item that failed before it could run says why
                ) { _, incomplete in incomplete }
            }
        }
        let (earlierReports, finishedRecords) = ([firstReport] + (started?.reports ?? []), earlierRecords)
        let secondPart = SessionPart(part) { report in report.following(earlierReports, records: finishedRecords) }
        let opened: (RunStore, UpToDate)?
        if let store = started?.store?.handedOverToTheLastPlan() {
            opened = (store, SessionStore(options: options).decide(secondPart, in: store))
        } else {
            opened = options.part == .lists ? nil : try SessionStore(options: options).open(secondPart)
        }
        return PreparedRun(
            part: secondPart, opened: opened,
            options: options.run, bucket: bucket, earlier: earlier, settled: settled,
            reportedEarlier: Set(finishedRecords.keys), skipping: skipping)
    }

    /// Runs the producers and what they need (`first`, by index in ``plan``), the store keeping the producers'
    /// outputs; returns its report and the outputs the second phase reads, by position in `first`. Its store is
    /// let go of before the second phase opens it again.
    /// With `streaming`, the items of that fan-out's list start as its producer prints them, and what they ran
    /// comes back too; the store stays open until they have ended.
    private func runFirstPhase(_ first: [Int], producers: [Int: Int], position: [Int: Int], streaming: Int?)
        throws(SessionError) -> (RunReport, [Int: any Sendable], StreamedList.Started?)
    {
        let keep = Set(producers.values.compactMap { position[$0] })
        let journal = listsJournal
        let part = SessionPart(plan: plan.restricted(to: first), journal: journal, keepValues: keep) { $0 }
        let opened = try SessionStore(options: options).open(part)
        var runOptions = options.run
        var streamed: StreamedList?
        if let fanOut = streaming, let producer = producers[fanOut].flatMap({ position[$0] }) {
            let shared = StreamedList.Shared(
                store: opened?.0,
                queues: QueueSet(workflow: plan.workflow, defaultLimit: runOptions.maxConcurrentDefault),
                outputs: OutputLedger(), origin: RunOrigin(clock: runOptions.clock))
            let list = StreamedList(fanOut: fanOut, lists: self, shared: shared)
            runOptions.sharedQueues = shared.queues
            runOptions.sharedOutputs = shared.outputs
            runOptions.sharedOrigin = shared.origin
            runOptions.outputChunks = [producer: { list.take($0) }]
            streamed = list
        }
        let run = PreparedRun(
            part: part, opened: opened, options: runOptions, bucket: journal == nil ? nil : bucket,
            capturing: keep.union(readLater(first).compactMap { position[$0] }), closesStore: streamed == nil)
        options.starting(run.runner)
        let report = Result { () throws(SessionError) in try run.run() }
        var started = streamed?.finish()
        if started?.reports.isEmpty == true || (started != nil && (try? report.get()) == nil) {
            opened?.0.close()  // no batch ran: the second phase opens the store as without streaming
            started?.store = nil
        }
        return (try report.get(), run.capturedOutputs, started)
    }

    /// The gathers over a list that came out empty, with the cause they are skipped for: the fan-out's tasks have
    /// no items to run, so only a gather with `runIf: always` runs.
    static func gathersOverNoItems(_ plan: Plan, emptyLists: Set<Int>) -> [Int: String] {
        let tasks = plan.workflow.tasks
        let taskIndex = plan.workflow.taskIndex()
        var empty: [Int: String] = [:]  // the tasks of each empty fan-out, with the fan-out's cause
        for fanOut in emptyLists {
            let cause =
                "no items: the list of '\(tasks[fanOut].id.value)' from '\(tasks[fanOut].forEach?.producer?.value ?? "")' is empty"
            for task in plan.workflow.tasksOverList(of: fanOut) where empty[task] == nil { empty[task] = cause }
        }
        guard !empty.isEmpty else { return [:] }
        var skipped: [Int: String] = [:]
        for (index, node) in plan.nodes.enumerated() {
            let task = tasks[node.taskIndex]
            guard task.gather, task.runIf != .always,
                let cause = task.dependsOn.lazy.compactMap({ taskIndex[$0.value].flatMap { empty[$0] } }).first
            else { continue }
            skipped[index] = cause
        }
        return skipped
    }

    /// The plan with the lists the producers printed when the store last recorded them, for a dry run and
    /// `explain`: what the next run expands, if the producers print the same. The plan as written (its fan-outs
    /// without nodes) where the store has no list.
    func recordedPlan() throws(SessionError) -> Plan {
        let lists = try recordedLists()
        return lists.isEmpty ? plan : try replanned(with: lists)
    }

    /// The lists the producers printed when the store last recorded them — in the lists step's journal for a
    /// part of a split run (``listsJournal``) —, by fan-out task index; a list the store has not is left out.
    func recordedLists() throws(SessionError) -> [Int: [ForEachItem]] {
        let whole = SessionPart(plan: plan, journal: listsJournal) { $0 }
        guard let (store, _) = try SessionStore(options: options).read(whole, recordedOnly: true) else { return [:] }
        var lists: [Int: [ForEachItem]] = [:]
        for (fanOut, producer) in producerNodes() {
            guard let blob = store.latest[plan.nodes[producer].id]?.blob,
                let payload = try? store.blobs.read(blob, as: DataPayload.self) as? DataPayload,
                case .success(let list) = RunTimeItems.items(
                    of: payload.bytes, keyField: plan.workflow.tasks[fanOut].forEach?.keyField)
            else { continue }
            lists[fanOut] = list.items
        }
        return lists
    }

    /// The nodes of the first phase whose outputs a node of the second may read: those of a task that a task
    /// outside the first phase depends on (held until the second phase restores them; the others are not kept).
    private func readLater(_ first: [Int]) -> [Int] {
        let firstTasks = Set(first.map { plan.nodes[$0].taskIndex })
        let taskIndex = plan.workflow.taskIndex()
        var readLater = Set<Int>()
        for (index, task) in plan.workflow.tasks.enumerated() where !firstTasks.contains(index) {
            for entry in task.dependsOn {
                if let dependency = taskIndex[entry.value], firstTasks.contains(dependency) {
                    readLater.insert(dependency)
                }
            }
        }
        return first.filter { readLater.contains(plan.nodes[$0].taskIndex) }
    }

    /// The node of each fan-out's producer, by the fan-out's task index (validation made each a single node).
    func producerNodes() -> [Int: Int] {
        var nodeOfTask: [Int: Int] = [:]
        for (index, node) in plan.nodes.enumerated() where nodeOfTask[node.taskIndex] == nil {
            nodeOfTask[node.taskIndex] = index
        }
        var producers: [Int: Int] = [:]
        for (index, task) in plan.workflow.tasks.enumerated() {
            if let name = task.forEach?.producer?.value, let producerTask = plan.workflow.taskIndex()[name],
                let node = nodeOfTask[producerTask]
            {
                producers[index] = node
            }
        }
        return producers
    }

    /// The producers and every node they depend on, ascending (each after its dependencies).
    private func firstPhaseNodes(producers: some Collection<Int>) -> [Int] {
        var needed = [Bool](repeating: false, count: plan.nodes.count)
        var stack = Array(producers)
        while let index = stack.popLast() {
            guard !needed[index] else { continue }
            needed[index] = true
            plan.graph.forEachDependency(of: index) { stack.append($0) }
        }
        return needed.indices.filter { needed[$0] }
    }

    /// The plan with the lists known, each item a node of its own; the items' parameters are resolved when their
    /// nodes run, so a bad item fails its own nodes. Cut down to the `--target`s, it keeps the nodes planned before
    /// (the first phase's among them).
    func replanned(with lists: [Int: [ForEachItem]]) throws(SessionError) -> Plan {
        var context = ValidationContext(
            workflow: plan.workflow, registry: plan.registry, environment: plan.environment)
        context.runTimeItems = lists
        let planner = Planner(context: context)
        var diagnostics = Diagnostics()
        guard let expansion = planner.expand(diagnostics: &diagnostics),
            let whole = planner.plan(expansion, diagnostics: &diagnostics), !diagnostics.hasErrors,
            let second =
                plan.targets.isEmpty
                ? whole
                : whole.restricted(to: plan.targets + plan.nodes.map(\.id), listsKnown: true, diagnostics: &diagnostics)
        else {
            let first = diagnostics.all.first { $0.severity == .error }
            let message = [first?.message, first?.suggestion.map { "did you mean '\($0)'?" }, first?.hint]
                .compactMap { $0 }.joined(separator: "; ")
            throw SessionError(
                .unknownTask,
                "with the lists made at run time known, \(message.isEmpty ? "nothing is planned" : message); nothing more was run"
            )
        }
        return second
    }

    /// A report with the producers whose output is not a list marked failed, with the reason.
    private static func marking(_ report: RunReport, failed: [String: NodeFailure]) -> RunReport {
        guard !failed.isEmpty else { return report }
        var nodes = Array(report.nodes)
        for index in nodes.indices {
            guard let failure = failed[nodes[index].id] else { continue }
            nodes[index].status = .failed
            nodes[index].code = failure.code.description
            nodes[index].cause = failure.message
        }
        var marked = RunReport(
            workflow: report.workflow, path: report.path, startedAt: report.startedAt, duration: report.duration,
            interrupted: report.interrupted, nodes: RunReport.Nodes(nodes), queueLimits: report.queueLimits)
        marked.tasks = report.tasks
        return marked
    }
}
