import ArgumentParser
import FlowKit
import Foundation

/// `flowrun tasks`: every task type with its parameters, defaults, and what it consumes and provides.
struct TasksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tasks", abstract: "List the task types with their parameters.")

    @Argument(help: "Show only these types.")
    var types: [String] = []

    func run() throws {
        let registry = CommandEnvironment.registry
        for name in types where registry[name] == nil {
            let suggestion = Suggestion.closest(to: name, in: registry.names).map { " (did you mean '\($0)'?)" } ?? ""
            Terminal().error("error: unknown task type '\(name)'\(suggestion)\n")
            throw ExitCode(2)
        }
        let selected = types.isEmpty ? registry.all : types.compactMap { registry[$0] }
        Terminal().print(selected.map(Self.describe).joined(separator: "\n"))
    }

    static func describe(_ type: any TaskType) -> String {
        var out = "\(type.name) — \(type.summary)\n"
        let consumes: String
        switch type.consumes {
        case .none: consumes = "nothing"
        case .anything: consumes = "anything"
        case .oneOf(let kinds): consumes = kinds.map(\.name).joined(separator: " or ")
        }
        out += "  consumes: \(consumes); provides: \(type.provides?.name ?? "nothing")\n"
        out +=
            type.cachedByDefault
            ? "  cache: results reused across runs (implementation \(type.implementationVersion)); `cache: false` to always run\n"
            : "  cache: always runs (side effects); `cache: true` to reuse results across runs\n"
        let width = type.parameters.map(\.name.count).max() ?? 0
        for parameter in type.parameters {
            var detail = parameter.type.description
            if parameter.isRequired { detail += ", required" }
            if let value = parameter.defaultValue { detail += ", default \(value)" }
            if let range = parameter.range {
                detail +=
                    range.upperBound >= Double(Int.max)
                    ? ", ≥ \(Value.double(range.lowerBound))"
                    : ", \(Value.double(range.lowerBound))…\(Value.double(range.upperBound))"
            }
            out += "  \(parameter.name.padded(to: width))  \(parameter.summary) (\(detail))\n"
        }
        for constraint in type.constraints {
            switch constraint {
            case .mutuallyExclusive(let keys): out += "  at most one of: \(keys.joined(separator: ", "))\n"
            case .oneRequired(let keys): out += "  at least one of: \(keys.joined(separator: ", "))\n"
            case .requires(let key, let others): out += "  \(key) needs: \(others.joined(separator: ", "))\n"
            }
        }
        return out
    }
}

/// `flowrun schema`: the JSON Schema of the workflow format, for editors.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of the workflow format.",
        discussion: "For yaml-language-server, add `# yaml-language-server: $schema=flowrun.schema.json` to a workflow."
    )

    func run() throws {
        let data = try WorkflowSchema.json(for: CommandEnvironment.registry)
        Terminal().print(String(decoding: data, as: UTF8.self) + "\n")
    }
}
