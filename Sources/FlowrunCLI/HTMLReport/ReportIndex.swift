import FlowBasics
import FlowKit

/// What the page's sections look up in a report, computed once: nodes by id and by task, edges both ways,
/// per-task totals and the critical path.
struct ReportIndex {
    let report: RunReport
    /// The tasks in the order written; from the nodes when the report predates the task list.
    let tasks: [RunReport.TaskRecord]
    /// Task index by id.
    let taskIndex: [String: Int]
    /// Each task's nodes, by index into `report.nodes`, in plan order.
    let nodesOfTask: [[Int]]
    /// Each node's task, by index into `tasks`.
    let taskOfNode: [Int]
    /// Each node's dependencies and dependents, by index.
    let dependencies: [[Int]]
    let dependents: [[Int]]
    /// Each node's position in its `forEach` list (from `task[i]`), if expanded.
    let item: [Int?]
    /// How many items the run's expanded tasks have (the largest list).
    let itemCount: Int
    /// The nodes on the critical path, in order of time.
    let criticalPath: [Int]

    init(_ report: RunReport) {
        self.report = report
        tasks = report.tasks.isEmpty ? Self.tasks(from: report.nodes) : report.tasks
        var taskIndex: [String: Int] = [:]
        for (index, task) in tasks.enumerated() { taskIndex[task.id] = taskIndex[task.id] ?? index }
        self.taskIndex = taskIndex
        var nodesOfTask = [[Int]](repeating: [], count: tasks.count)
        var taskOfNode: [Int] = []
        taskOfNode.reserveCapacity(report.nodes.count)
        for (index, node) in report.nodes.enumerated() {
            let task = taskIndex[node.task] ?? 0
            nodesOfTask[task].append(index)
            taskOfNode.append(task)
        }
        self.nodesOfTask = nodesOfTask
        self.taskOfNode = taskOfNode
        let dependencies = report.nodes.map { $0.dependencies.filter { report.nodes.indices.contains($0) } }
        var dependents = [[Int]](repeating: [], count: report.nodes.count)
        for (index, list) in dependencies.enumerated() {
            for dependency in list { dependents[dependency].append(index) }
        }
        self.dependencies = dependencies
        self.dependents = dependents
        item = report.nodes.map(\.item)
        itemCount = (item.compactMap { $0 }.max() ?? -1) + 1
        criticalPath = CriticalPath.nodes(of: report.nodes, dependencies: dependencies)
    }

    /// The task graph's edges, by task index.
    var taskDependencies: [[Int]] {
        tasks.map { task in task.dependsOn.compactMap { taskIndex[$0] } }
    }

    /// How many of a task's nodes ended in each status.
    func totals(ofTask task: Int) -> [NodeStatus: Int] {
        nodesOfTask[task].reduce(into: [:]) { $0[report.nodes.status(at: $1), default: 0] += 1 }
    }

    /// Every node downstream of `root` that was skipped: what its failure caused.
    func skipped(downstreamOf root: Int) -> [Int] {
        var seen = Set<Int>()
        var result: [Int] = []
        func enter(_ index: Int) -> Bool {
            guard seen.insert(index).inserted, report.nodes.status(at: index) == .skipped else { return false }
            result.append(index)
            return true
        }
        GraphAlgorithms.visit(
            from: CollectionOfOne(root), successors: { dependents[$0].forEach($1) }, enter: enter)
        return result.sorted()
    }

    /// The failed or cancelled node upstream that a skipped node was skipped for (the nearest one); the node
    /// itself when it failed or was cancelled.
    func rootFailure(of node: Int) -> Int? {
        func isFailure(_ index: Int) -> Bool {
            let status = report.nodes.status(at: index)
            return status == .failed || status == .cancelled
        }
        if isFailure(node) { return node }
        var seen = Set<Int>()
        var found: Int?
        func enter(_ index: Int) -> Bool {
            guard found == nil, seen.insert(index).inserted else { return false }
            if isFailure(index) { found = index }
            return found == nil
        }
        GraphAlgorithms.visitBreadthFirst(
            from: CollectionOfOne(node), successors: { dependencies[$0].forEach($1) }, enter: enter)
        return found
    }

    /// The tasks of a report that has no task list: in node order, without edges or locations.
    private static func tasks(from nodes: RunReport.Nodes) -> [RunReport.TaskRecord] {
        var seen = Set<String>()
        return nodes.compactMap { node in
            guard seen.insert(node.task).inserted else { return nil }
            return RunReport.TaskRecord(
                id: node.task, type: node.type, queue: node.queue, dependsOn: [], location: "",
                forEach: node.item != nil, gather: false)
        }
    }
}
