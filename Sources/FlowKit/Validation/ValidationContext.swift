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
        self.order = GraphOrder.topological(upstream: upstream)
    }

    /// The registered type of a task, if known.
    func type(of task: TaskSpec) -> (any TaskType)? { registry[task.type.value] }

    /// The tasks a task depends on that exist, with the location of each `dependsOn` entry.
    func dependencies(of task: TaskSpec) -> [(task: TaskSpec, location: SourceLocation)] {
        task.dependsOn.compactMap { entry in
            taskIndex[entry.value].map { (workflow.tasks[$0], entry.location) }
        }
    }

    /// The tasks that run once per item: those with `forEach`, and those that depend (not as `gather`) on
    /// an expanded task. A walk from the `forEach` tasks along dependents, so it works on cyclic graphs too.
    func expandedTasks() -> Set<String> {
        var dependents: [String: [TaskSpec]] = [:]
        for task in workflow.tasks {
            for entry in task.dependsOn { dependents[entry.value, default: []].append(task) }
        }
        var expanded = Set(workflow.tasks.filter { $0.forEach != nil }.map(\.id.value))
        var stack = Array(expanded)
        while let id = stack.popLast() {
            for dependent in dependents[id] ?? [] where !dependent.gather {
                if expanded.insert(dependent.id.value).inserted { stack.append(dependent.id.value) }
            }
        }
        return expanded
    }
}

/// Orders tasks so every task comes after its dependencies.
enum GraphOrder {
    /// Kahn's algorithm over task indexes, given each task's distinct dependencies. `nil` when there is a cycle.
    static func topological(upstream: [[Int]]) -> [Int]? {
        let count = upstream.count
        var indegree = [Int](repeating: 0, count: count)
        var dependents = [[Int]](repeating: [], count: count)
        for (index, dependencies) in upstream.enumerated() {
            indegree[index] = dependencies.count
            for dependency in dependencies { dependents[dependency].append(index) }
        }
        var order = (0..<count).filter { indegree[$0] == 0 }
        var cursor = 0
        while cursor < order.count {
            for next in dependents[order[cursor]] {
                indegree[next] -= 1
                if indegree[next] == 0 { order.append(next) }
            }
            cursor += 1
        }
        return order.count == count ? order : nil
    }
}
