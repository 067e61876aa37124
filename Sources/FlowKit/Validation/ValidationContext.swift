/// What every validator reads: the workflow, the registry, and indexes over the tasks.
struct ValidationContext {
    let workflow: Workflow
    let registry: TaskRegistry
    let environment: [String: String]
    let taskIndex: [String: Int]

    init(workflow: Workflow, registry: TaskRegistry, environment: [String: String]) {
        self.workflow = workflow
        self.registry = registry
        self.environment = environment
        self.taskIndex = workflow.taskIndex()
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
    /// Kahn's algorithm over task indexes; unknown dependencies are ignored. `nil` when there is a cycle.
    static func topological(_ workflow: Workflow, taskIndex: [String: Int]) -> [Int]? {
        let count = workflow.tasks.count
        var indegree = [Int](repeating: 0, count: count)
        var dependents = [[Int]](repeating: [], count: count)
        for (index, task) in workflow.tasks.enumerated() {
            for dependency in Set(task.dependsOn.map(\.value)) {
                guard let upstream = taskIndex[dependency], upstream != index else { continue }
                indegree[index] += 1
                dependents[upstream].append(index)
            }
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
