import FlowBasics
import FlowKit
import Foundation

/// What Argo's JSON Schema cannot see in a ``ArgoWorkflow``: that names resolve and the DAG has no cycle.
///
/// The schema checks each object's shape, not references: a task's `template` or `dependencies` naming nothing,
/// two tasks of one name, `{{inputs.parameters.x}}` with no input `x`, or a cycle all pass it and fail only
/// when the controller runs the workflow.
enum ArgoCheck {
    /// Every problem found, empty when the workflow is sound.
    static func problems(in workflow: ArgoWorkflow) -> [String] {
        var problems: [String] = []
        var templates: [String: ArgoWorkflow.Template] = [:]
        for template in workflow.templates {
            if templates[template.name] != nil { problems.append("two templates are named '\(template.name)'") }
            templates[template.name] = template
        }
        if templates[workflow.entrypoint] == nil {
            problems.append("the entrypoint '\(workflow.entrypoint)' names no template")
        }
        for template in workflow.templates {
            if (template.dag == nil) == (template.container == nil) {
                problems.append("template '\(template.name)' must have exactly one of a DAG and a container")
            }
            if let container = template.container {
                for name in referencedInputs(in: container.command + container.args)
                where !template.inputs.contains(name) {
                    problems.append(
                        "template '\(template.name)' uses {{inputs.parameters.\(name)}}, which it does not declare")
                }
            }
            if let dag = template.dag { problems += check(dag: dag, of: template.name, templates: templates) }
        }
        return problems
    }

    private static func check(dag: [ArgoWorkflow.DAGTask], of owner: String, templates: [String: ArgoWorkflow.Template])
        -> [String]
    {
        var problems: [String] = []
        var tasks: [String: ArgoWorkflow.DAGTask] = [:]
        for task in dag {
            if tasks[task.name] != nil { problems.append("DAG '\(owner)' has two tasks named '\(task.name)'") }
            tasks[task.name] = task
        }
        for task in dag {
            if let template = templates[task.template] {
                let given = Set(task.arguments.map(\.name))
                for input in template.inputs where !given.contains(input) {
                    problems.append("task '\(task.name)' passes no parameter '\(input)' to template '\(task.template)'")
                }
            } else {
                problems.append("task '\(task.name)' of DAG '\(owner)' names no template: '\(task.template)'")
            }
            if task.template == owner { problems.append("task '\(task.name)' runs the DAG '\(owner)' inside itself") }
            for dependency in task.dependencies where tasks[dependency] == nil {
                problems.append("task '\(task.name)' of DAG '\(owner)' depends on no task: '\(dependency)'")
            }
            if task.sequence == nil, task.arguments.contains(where: { $0.value.contains("{{item}}") }) {
                problems.append("task '\(task.name)' uses {{item}} without withSequence")
            }
        }
        if let cycle = cycle(in: tasks) {
            problems.append("DAG '\(owner)' has a cycle: \(cycle.joined(separator: " → "))")
        }
        return problems
    }

    /// A dependency cycle among `tasks`, as the names around it, if there is one: the first a depth-first walk
    /// from the names in order finds.
    private static func cycle(in tasks: [String: ArgoWorkflow.DAGTask]) -> [String]? {
        let names = tasks.keys.sorted()
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() { index[name] = position }
        let dependencies = names.map { name in (tasks[name]?.dependencies ?? []).compactMap { index[$0] } }
        var first: [String]?
        GraphAlgorithms.findCycles(
            count: names.count, successors: { dependencies[$0] },
            onCycle: { steps in
                guard first == nil, let start = steps.first else { return }
                first = steps.map { names[$0.node] } + [names[start.node]]
            })
        return first
    }

    /// The names in `{{inputs.parameters.NAME}}` references.
    static func referencedInputs(in words: [String]) -> [String] {
        let prefix = "{{inputs.parameters."
        var names: [String] = []
        for word in words {
            var rest = Substring(word)
            while let open = rest.range(of: prefix) {
                rest = rest[open.upperBound...]
                guard let close = rest.range(of: "}}") else { break }
                names.append(String(rest[..<close.lowerBound]))
                rest = rest[close.upperBound...]
            }
        }
        return names
    }
}
