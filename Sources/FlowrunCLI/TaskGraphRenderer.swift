import FlowBasics
import FlowKit
import Foundation

/// Draws a plan's task graph — one box per task, a `forEach` task labelled with its item count — for Graphviz,
/// Mermaid or JSON: what stays readable when the node graph has thousands of nodes.
struct TaskGraphRenderer: GraphDrawing {
    let plan: Plan

    /// One task as drawn.
    private struct Box {
        var id: String
        var label: String
        var dependencies: [(id: String, gathers: Bool)]
    }

    /// How many nodes each task expanded to, by task index.
    private var nodeCounts: [Int] {
        var counts = [Int](repeating: 0, count: plan.workflow.tasks.count)
        for node in plan.nodes { counts[node.taskIndex] += 1 }
        return counts
    }

    private var boxes: [Box] {
        let counts = nodeCounts
        let expanded = Set(plan.nodes.filter { $0.itemIndex != nil }.map(\.taskIndex))
        let known = Set(plan.workflow.tasks.map(\.id.value))
        return plan.workflow.tasks.enumerated().map { index, task in
            var label = "\(task.id.value)\n\(task.type.value) @ \(task.queueName)"
            if expanded.contains(index) { label += "\n× \(counts[index]) item\(counts[index] == 1 ? "" : "s")" }
            if task.runIf != .success { label += "\nrunIf: \(task.runIf.rawValue)" }
            var seen = Set<String>()
            let dependencies = task.dependsOn.map(\.value).filter { known.contains($0) && seen.insert($0).inserted }
            return Box(id: task.id.value, label: label, dependencies: dependencies.map { ($0, task.gather) })
        }
    }

    func dot() -> String {
        var out = "digraph \(Self.quoted(plan.workflow.name)) {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n"
        let boxes = boxes
        for box in boxes { out += "  \(Self.quoted(box.id)) [label=\(Self.quoted(box.label))];\n" }
        out += Self.dotClusters(plan) { [plan.workflow.tasks[$0].id.value] }
        for box in boxes {
            for dependency in box.dependencies {
                let style = dependency.gathers ? " [style=dashed, label=\"gather\"]" : ""
                out += "  \(Self.quoted(dependency.id)) -> \(Self.quoted(box.id))\(style);\n"
            }
        }
        return out + "}\n"
    }

    func mermaid() -> String {
        var out = "flowchart LR\n"
        let boxes = boxes
        let number = Dictionary(uniqueKeysWithValues: boxes.enumerated().map { ($0.element.id, $0.offset) })
        for (index, box) in boxes.enumerated() {
            out += "  t\(index)[\"\(Self.mermaidText(box.label))\"]\n"
        }
        out += Self.mermaidSubgraphs(plan) { ["t\($0)"] }
        for (index, box) in boxes.enumerated() {
            for dependency in box.dependencies {
                guard let from = number[dependency.id] else { continue }
                out += dependency.gathers ? "  t\(from) -. gather .-> t\(index)\n" : "  t\(from) --> t\(index)\n"
            }
        }
        return out
    }

    /// The tasks as JSON: pretty-printed, keys in ascending order.
    func json() -> String {
        let counts = nodeCounts
        let expanded = Set(plan.nodes.filter { $0.itemIndex != nil }.map(\.taskIndex))
        let tasks: [JSONValue] = zip(plan.workflow.tasks.indices, boxes).map { index, box in
            let task = plan.workflow.tasks[index]
            var entry: JSONValue = [
                "id": .string(box.id), "type": .string(task.type.value), "queue": .string(task.queueName),
                "nodes": .integer(counts[index]), "forEach": .bool(expanded.contains(index)),
                "gather": .bool(task.gather),
                "runIf": .string(task.runIf.rawValue), "dependsOn": JSONValue(box.dependencies.map(\.id)),
            ]
            if let group = task.group { entry["group"] = .string(group) }
            return entry
        }
        let graph: JSONValue = ["workflow": .string(plan.workflow.name), "tasks": .list(tasks)]
        return String(decoding: graph.sortingKeys().json(pretty: true), as: UTF8.self) + "\n"
    }

    private static func quoted(_ text: String) -> String { GraphRenderer.quoted(text) }
}
