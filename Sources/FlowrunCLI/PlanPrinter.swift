import ArgumentParser
import FlowKit
import OrderedCollections

/// How much of a plan a dry run prints (`--plan`).
enum PlanDetail: String, ExpressibleByArgument, CaseIterable {
    /// A line per task: its nodes, type, queue and the tasks it waits for.
    case tasks
    /// Every node with its type, queue and dependencies, in topological waves.
    case nodes
}

/// The dry-run view of a plan: a line per task by default, every node in topological waves with
/// ``PlanDetail/nodes``, or the verdict line alone when quiet.
struct PlanPrinter {
    let plan: Plan
    /// How many items each list made at run time has, by fan-out task index, as the store last recorded it;
    /// empty where a list is not known, or when ``plan`` is whole.
    var listSizes: [Int: Int] = [:]
    /// What the plan is shown as.
    var detail = PlanDetail.tasks
    /// Print the verdict line alone.
    var quiet = false

    /// The last line of every dry run.
    static let verdict = "valid: nothing was fetched, decoded or written\n"

    /// The plan; `upToDate` (what the store decided) goes before the closing line.
    func render(upToDate: String? = nil) -> String {
        if quiet { return Self.verdict }
        let waves = plan.waves()
        let workflow = plan.workflow
        var out =
            "\(workflow.name): \(workflow.tasks.count) task\(workflow.tasks.count == 1 ? "" : "s") → "
            + "\(plan.nodes.count) node\(plan.nodes.count == 1 ? "" : "s") in \(waves.count) wave\(waves.count == 1 ? "" : "s")\n"
        let queues = workflow.queues.values.map { queue in
            "\(queue.name) (\(queue.maxConcurrent.map(String.init) ?? "cores"))"
        }
        out += "queues: \(queues.joined(separator: ", "))\n"
        switch detail {
        case .tasks: out += tasks()
        case .nodes: out += nodes(in: waves)
        }
        out += runTimeLists()
        if let upToDate { out += "\n" + upToDate }
        out += "\n" + Self.verdict
        return out
    }

    /// A line per task of the plan: `  decode  119 nodes  decode  default  ← fetch`, then where the nodes are.
    private func tasks() -> String {
        let workflow = plan.workflow
        var counts = [Int](repeating: 0, count: workflow.tasks.count)
        var waitsFor = [OrderedSet<Int>](repeating: [], count: workflow.tasks.count)
        for index in plan.nodes.indices {
            let task = plan.nodes[index].taskIndex
            counts[task] += 1
            for dependency in plan.dependencies(of: index) { waitsFor[task].append(plan.nodes[dependency].taskIndex) }
        }
        let planned = workflow.tasks.indices.filter { counts[$0] > 0 }
        let idWidth = planned.map { Terminal.visible(workflow.tasks[$0].id.value, oneLine: true).count }.max() ?? 4
        let countText = planned.map { "\(counts[$0]) node\(counts[$0] == 1 ? "" : "s")" }
        let countWidth = countText.map(\.count).max() ?? 0
        let typeWidth = planned.map { workflow.tasks[$0].type.value.count }.max() ?? 4
        let queueWidth = planned.map { workflow.tasks[$0].queueName.count }.max() ?? 7
        var out = "\n"
        for (task, count) in zip(planned, countText) {
            let spec = workflow.tasks[task]
            var line =
                "  " + Terminal.visible(spec.id.value, oneLine: true).padded(to: idWidth) + "  "
                + count.padded(to: countWidth) + "  " + spec.type.value.padded(to: typeWidth) + "  "
                + spec.queueName.padded(to: queueWidth)
            if !waitsFor[task].isEmpty {
                line +=
                    "  ← "
                    + Self.summarize(
                        waitsFor[task].map { Terminal.visible(workflow.tasks[$0].id.value, oneLine: true) },
                        noun: "tasks")
            }
            out += line.trailingSpacesTrimmed + "\n"
        }
        return out + "(--plan nodes lists every node)\n"
    }

    /// Every node, wave by wave.
    private func nodes(in waves: [[Int]]) -> String {
        let workflow = plan.workflow
        let idWidth = min(plan.nodes.map(\.id.count).max() ?? 4, 40)
        let typeWidth = workflow.tasks.map(\.type.value.count).max() ?? 4
        let queueWidth = workflow.queues.keys.map(\.count).max() ?? 7
        var out = ""
        for (number, wave) in waves.enumerated() {
            out += "\nwave \(number + 1)\n"
            for index in wave {
                let node = plan.nodes[index]
                let task = plan.task(of: node)
                var line =
                    "  " + NodeName.forTerminal(node.id, shortenedTo: NodeName.tableWidth).padded(to: idWidth) + "  "
                    + task.type.value.padded(to: typeWidth)
                    + "  " + task.queueName.padded(to: queueWidth)
                let dependencies = plan.dependencies(of: index)
                if !dependencies.isEmpty {
                    line += "  ← " + Self.summarize(dependencies.map { NodeName.forTerminal(plan.nodes[$0].id) })
                }
                out += line.trailingSpacesTrimmed + "\n"
            }
        }
        return out
    }

    /// A line per list made at run time: known only after its producer runs, or as the store last recorded it.
    private func runTimeLists() -> String {
        var out = ""
        for (taskIndex, task) in plan.workflow.tasks.enumerated() {
            guard let producer = task.forEach?.producer?.value else { continue }
            let here = plan.nodes.lazy.filter { $0.taskIndex == taskIndex }.count
            let items = listSizes[taskIndex] ?? here
            // A shard runs some of the items; the gather phase only those whose values it reads.
            let part = here == items ? "" : " (\(here) of them in this part)"
            out +=
                items == 0
                ? "\nthe list of '\(task.id.value)' is known only after '\(producer)' runs\n"
                : "\nthe list of '\(task.id.value)': \(items) item\(items == 1 ? "" : "s"), as '\(producer)' printed it last\(part)\n"
        }
        return out
    }

    /// Lists dependencies, eliding long gather lists: `a[0], a[1], … a[199] (200 nodes)`.
    private static func summarize(_ ids: [String], noun: String = "nodes") -> String {
        guard ids.count > 6 else { return ids.joined(separator: ", ") }
        return ids.prefix(3).joined(separator: ", ") + ", … " + (ids.last ?? "") + " (\(ids.count) \(noun))"
    }
}

extension String {
    func padded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    var trailingSpacesTrimmed: String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
