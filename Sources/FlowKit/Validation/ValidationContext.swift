import FlowBasics

/// What every validator reads: the workflow, the registry, and indexes over the tasks.
struct ValidationContext {
    let workflow: Workflow
    let registry: TaskRegistry
    let environment: [String: String]
    let taskIndex: [String: Int]
    /// For each task, the indexes of the distinct known tasks it depends on (itself excluded), in the
    /// order written.
    let upstream: [[Int]]
    /// The tasks in dependency order, or `nil` when there is a cycle. Computed once: the reference
    /// validator and the planner both need it.
    let order: [Int]?
    /// The nodes the tasks expand to, for the validators of the ``ValidationStage/nodes`` stage; `nil` before.
    var expansion: Expansion?
    /// Whether a glob that matches no files is an error rather than a warning (`--strict`).
    var strict = false
    /// Whether the files that must be there before a run are checked (``RequiredFileValidator``); not when the
    /// workflow is exported to run on other machines, which check them where they run.
    var checksFiles = true
    /// The lists made at run time (`forEach: { from: TASK }`) known so far, by the fan-out's task index; a fan-out
    /// whose list is not known expands to no nodes.
    var runTimeItems: [Int: [ForEachItem]] = [:]
    /// Where ``NodeParameterValidator`` keeps what it resolved of each node for the store's keys, once the
    /// expansion is known; the plan takes it (``Plan/resolvedNodes``).
    var resolvedNodes: ResolvedNodes.Builder?

    init(workflow: Workflow, registry: TaskRegistry, environment: [String: String]) {
        self.workflow = workflow
        self.registry = registry
        self.environment = environment
        let taskIndex = workflow.taskIndex()
        self.taskIndex = taskIndex
        let upstream = workflow.tasks.enumerated().map { index, task in
            var result: [Int] = []
            result.reserveCapacity(task.dependsOn.count)
            for entry in task.dependsOn {
                // dependsOn lists are short: a linear check beats hashing into a Set per task.
                if let dependency = taskIndex[entry.value], dependency != index, !result.contains(dependency) {
                    result.append(dependency)
                }
            }
            return result
        }
        self.upstream = upstream
        self.order = GraphAlgorithms.topologicalSort(count: upstream.count) { upstream[$0] }
    }

    /// The registered type of a task, if known.
    func type(of task: TaskSpec) -> (any TaskType)? { registry[task.type.value] }

    /// The tasks a task depends on that exist, with the location of each `dependsOn` entry.
    func dependencies(of task: TaskSpec) -> [(task: TaskSpec, location: SourceLocation)] {
        task.dependsOn.compactMap { entry in
            taskIndex[entry.value].map { (workflow.tasks[$0], entry.location) }
        }
    }

    /// The tasks that run once per item, by task index: those with `forEach`, and those that depend (not as
    /// `gather`) on an expanded task or on an unknown one. A walk from the `forEach` tasks along dependents, so it works on cyclic
    /// graphs too.
    func expandedTasks() -> [Bool] {
        let tasks = workflow.tasks
        var dependents = [[Int]](repeating: [], count: tasks.count)
        for (index, task) in tasks.enumerated() where !task.gather {
            for entry in task.dependsOn {
                if let dependency = taskIndex[entry.value] { dependents[dependency].append(index) }
            }
        }
        // A task that names an unknown task may have meant an expanded one, when there is one: that is one
        // mistake, reported by ``DependencyValidator``, not again as every `${item}` below it "used outside a
        // forEach".
        let expanded = tasks.indices.filter { tasks[$0].forEach != nil }
        let unknown =
            expanded.isEmpty
            ? []
            : tasks.indices.filter { index in
                !tasks[index].gather && tasks[index].dependsOn.contains { taskIndex[$0.value] == nil }
            }
        return GraphAlgorithms.reachable(
            from: expanded + unknown, count: tasks.count,
            successors: { task, body in dependents[task].forEach(body) })
    }
}
