import FlowImaging
import Foundation
import Testing

@testable import FlowKit

/// The keys every task has are declared once (``TaskKey``): the decoder reads each, the schema describes each and
/// nothing else, `defaults:` takes exactly the defaultable ones, and a task type cannot shadow one.
@Suite struct TaskKeyTests {
    /// A valid value of each key, on a `fetch` task that reads `data` (a `command`): exhaustive, so a new key needs
    /// a sample here before this compiles.
    static func sample(_ key: TaskKey) -> String {
        switch key {
        case .type: "type: fetch"
        case .dependsOn: "dependsOn: data"
        case .queue: "queue: default"
        case .priority: "priority: high"
        case .retries: "retries: 2"
        case .retryOn: "retryOn: [network, { status: 503 }]"
        case .timeout: "timeout: 5s"
        case .continueOnError: "continueOnError: true"
        case .runIf: "runIf: always"
        case .input: "input: data"
        case .forEach: "forEach: [a, b]"
        case .gather: "gather: false"
        case .cache: "cache: content"
        }
    }

    @Test(arguments: TaskKey.allCases)
    func theDecoderReadsEveryTaskKey(key: TaskKey) {
        let fields = key == .type ? "type: noop" : "type: noop, \(Self.sample(key))"
        let yaml = """
            version: 1
            tasks:
              data: { type: noop }
              task: { \(fields) }
            """
        let result = WorkflowLoader(registry: .builtIn, environment: [:]).plan(bytes: Array(yaml.utf8), path: "w.yaml")
        let problems = result.diagnostics.all.filter { $0.message.contains("unknown key") }.map(\.message)
        #expect(problems.isEmpty, "\(key): \(problems)")
    }

    @Test func theSchemaDescribesTheTaskKeysAndEachTypesParametersAndNothingElse() throws {
        let registry = TaskRegistry.standard
        let schema = try #require(
            try JSONSerialization.jsonObject(with: Data(WorkflowSchema.json(for: registry))) as? [String: Any])
        let task = try #require((schema["$defs"] as? [String: Any])?["task"] as? [String: Any])
        let cases = try #require((task["else"] as? [String: Any])?["allOf"] as? [[String: Any]])
        #expect(cases.count == registry.all.count)
        for (type, schemaCase) in zip(registry.all, cases) {
            let properties = try #require((schemaCase["then"] as? [String: Any])?["properties"] as? [String: Any])
            #expect(Set(properties.keys) == Set(TaskKey.names + type.parameters.map(\.name)), "\(type.name)")
        }
        let defaults = try #require(
            ((schema["properties"] as? [String: Any])?["defaults"] as? [String: Any])?["properties"] as? [String: Any])
        #expect(Set(defaults.keys) == Set(TaskKey.defaultable + registry.names))
    }

    @Test func aKeyThatDiffersFromTaskToTaskHasNoDefault() {
        let yaml = "version: 1\ndefaults: { forEach: [a] }\ntasks:\n  a: { type: noop }\n"
        let result = WorkflowLoader(registry: .builtIn, environment: [:]).plan(bytes: Array(yaml.utf8), path: "w.yaml")
        #expect(
            result.diagnostics.all.map(\.hint).contains(
                "'forEach' differs from task to task and has no default; set it on each task"))
    }

    /// A parameter named like a task key.
    struct ShadowingTask: TaskType {
        var name: String { "shadowing" }
        var summary: String { "Declares a parameter the task key `timeout` would shadow." }
        var consumes: InputRequirement { .none }
        var provides: ProviderKind? { nil }
        func makeOperation(_ context: NodeContext) -> FlowOperation { SleepOperation(context: context) }

        struct Parameters: TaskParameters {
            @Parameter(help: "Shadowed by the task key.")
            var timeout: Duration
            init() {}
        }
    }

    @Test func aParameterNamedLikeATaskKeyStopsTheProgramAtRegistration() async {
        await #expect(processExitsWith: .failure) {
            _ = TaskRegistry.builtIn.adding(ShadowingTask())
        }
    }

    @Test func aSecondTypeUnderOneNameStopsTheProgramAtRegistration() async {
        await #expect(processExitsWith: .failure) {
            _ = TaskRegistry.builtIn.adding(NoopTask())
        }
    }
}
