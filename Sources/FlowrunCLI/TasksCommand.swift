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
        if types.isEmpty { Terminal().print("\n" + Self.commonKeys + "\n") }
    }

    /// What every task takes besides its type's parameters.
    static let commonKeys = """
        Every task also takes:
          dependsOn        task ids (or an imported pipeline's id) that must end first
          queue, priority  where and how urgently it runs
          retries          more attempts after a failure, with backoff
          retryOn          which failures: transient (default), network, timeout, status: N or [N, …], any
          timeout          the limit of each attempt (250ms, 20s, 2m)
          runIf            success (default), always, allDone, anyFailed
          continueOnError  a failure does not fail the run
          input            which dependency to read when several could be
          forEach, gather  run once per item, or once after every item
          cache            whether the store reuses its results: true, false, content
        A task with `uses: FILE` imports that pipeline's tasks as a group; `with:` sets its params.
        `defaults:` at the top level sets queue, priority, retries, retryOn, timeout, continueOnError, runIf and
        cache for every task, and parameters by type ({ resize: { filter: bilinear } }).
        """

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
