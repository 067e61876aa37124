import FlowKit
import OrderedCollections

/// The dry-run view of a plan: every node with its type, queue and dependencies, in topological waves.
struct PlanPrinter {
    let plan: Plan
    /// How many items each list made at run time has, by fan-out task index, as the store last recorded it;
    /// empty where a list is not known, or when ``plan`` is whole.
    var listSizes: [Int: Int] = [:]

    /// The plan; `upToDate` (what the store decided) goes before the closing line.
    func render(upToDate: String? = nil) -> String {
        let waves = plan.waves()
        let workflow = plan.workflow
        var out =
            "\(workflow.name): \(workflow.tasks.count) task\(workflow.tasks.count == 1 ? "" : "s") → "
            + "\(plan.nodes.count) node\(plan.nodes.count == 1 ? "" : "s") in \(waves.count) wave\(waves.count == 1 ? "" : "s")\n"
        let queues = workflow.queues.values.map { queue in
            "\(queue.name) (\(queue.maxConcurrent.map(String.init) ?? "cores"))"
        }
        out += "queues: \(queues.joined(separator: ", "))\n"
        let idWidth = min(plan.nodes.map(\.id.count).max() ?? 4, 40)
        let typeWidth = workflow.tasks.map(\.type.value.count).max() ?? 4
        let queueWidth = workflow.queues.keys.map(\.count).max() ?? 7
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
        out += runTimeLists()
        if let upToDate { out += "\n" + upToDate }
        out += "\nvalid: nothing was fetched, decoded or written\n"
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
    private static func summarize(_ ids: [String]) -> String {
        guard ids.count > 6 else { return ids.joined(separator: ", ") }
        return ids.prefix(3).joined(separator: ", ") + ", … " + (ids.last ?? "") + " (\(ids.count) nodes)"
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
