import FlowBasics
import FlowKit
import Foundation

/// A graph drawn in each of `flowrun graph`'s formats.
protocol GraphDrawing {
    /// Graphviz.
    func dot() -> String
    /// A Mermaid flowchart.
    func mermaid() -> String
    /// JSON for tools.
    func json() -> String
}

extension GraphDrawing {
    /// The Graphviz clusters of a graph: one per imported pipeline, holding the boxes (node or task ids) of
    /// the tasks the pipeline itself imported (a nested pipeline's tasks are in its own cluster).
    static func dotClusters(_ plan: Plan, boxes: (_ taskIndex: Int) -> [String]) -> String {
        var out = ""
        for group in plan.workflow.groups {
            let members = plan.workflow.tasks.indices.filter { plan.workflow.tasks[$0].group == group.id }
            out += "  subgraph \(GraphRenderer.quoted("cluster_" + group.id)) {\n"
            let label = GraphRenderer.quoted("\(group.id) (\(group.path))")
            out += "    label=\(label);\n    style=dashed;\n"
            for box in members.flatMap(boxes) { out += "    \(GraphRenderer.quoted(box));\n" }
            out += "  }\n"
        }
        return out
    }

    /// The Mermaid subgraphs of a graph, as ``dotClusters(_:boxes:)``; boxes are Mermaid node names.
    static func mermaidSubgraphs(_ plan: Plan, boxes: (_ taskIndex: Int) -> [String]) -> String {
        var out = ""
        for (number, group) in plan.workflow.groups.enumerated() {
            let members = plan.workflow.tasks.indices.filter { plan.workflow.tasks[$0].group == group.id }
            out += "  subgraph g\(number)[\"\(mermaidText("\(group.id) (\(group.path))"))\"]\n"
            for box in members.flatMap(boxes) { out += "    \(box)\n" }
            out += "  end\n"
        }
        return out
    }

    /// Text for a quoted Mermaid label: what Mermaid would read as the label's end or as markup (a `"` in an item
    /// key, a `<` in a file name) as its entity code, a line break as `<br/>`.
    static func mermaidText(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "#": out += "#35;"
            case "\"": out += "#quot;"
            case "<": out += "#lt;"
            case ">": out += "#gt;"
            case "\n": out += "<br/>"
            default: out.append(character)
            }
        }
        return out
    }
}

/// Draws a plan's node graph for Graphviz, Mermaid, or tools reading JSON.
struct GraphRenderer: GraphDrawing {
    let plan: Plan

    /// The nodes of each task, by task index.
    private var nodesByTask: [[Int]] {
        var result = [[Int]](repeating: [], count: plan.workflow.tasks.count)
        for (index, node) in plan.nodes.enumerated() { result[node.taskIndex].append(index) }
        return result
    }

    func dot() -> String {
        var out = "digraph \(Self.quoted(plan.workflow.name)) {\n  rankdir=LR;\n  node [shape=box, style=rounded];\n"
        for node in plan.nodes {
            let task = plan.task(of: node)
            out +=
                "  \(Self.quoted(node.id)) [label=\(Self.quoted("\(node.id)\n\(task.type.value) @ \(task.queueName)"))];\n"
        }
        let byTask = nodesByTask
        out += Self.dotClusters(plan) { byTask[$0].map { plan.nodes[$0].id } }
        for (index, node) in plan.nodes.enumerated() {
            for dependency in plan.dependencies(of: index) {
                out += "  \(Self.quoted(plan.nodes[dependency].id)) -> \(Self.quoted(node.id));\n"
            }
        }
        return out + "}\n"
    }

    func mermaid() -> String {
        var out = "flowchart LR\n"
        for (index, node) in plan.nodes.enumerated() {
            let task = plan.task(of: node)
            out += "  n\(index)[\"\(Self.mermaidText(node.id))<br/>\(task.type.value) @ \(task.queueName)\"]\n"
        }
        let byTask = nodesByTask
        out += Self.mermaidSubgraphs(plan) { byTask[$0].map { "n\($0)" } }
        for index in plan.nodes.indices {
            for dependency in plan.dependencies(of: index) { out += "  n\(dependency) --> n\(index)\n" }
        }
        return out
    }

    /// The nodes as JSON: pretty-printed, keys in ascending order.
    func json() -> String {
        let nodes: [JSONValue] = plan.nodes.enumerated().map { index, node in
            let task = plan.task(of: node)
            var entry: JSONValue = [
                "id": .string(node.id), "task": .string(task.id.value), "type": .string(task.type.value),
                "queue": .string(task.queueName),
                "dependsOn": JSONValue(plan.dependencies(of: index).map { plan.nodes[$0].id }),
            ]
            if let item = node.item { entry["item"] = .string(item.description) }
            return entry
        }
        let graph: JSONValue = ["workflow": .string(plan.workflow.name), "nodes": .list(nodes)]
        return String(decoding: graph.sortingKeys().json(pretty: true), as: UTF8.self) + "\n"
    }

    /// A Graphviz string literal.
    static func quoted(_ text: String) -> String {
        "\""
            + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}
