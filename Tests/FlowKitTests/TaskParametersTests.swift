import FlowKitTesting
import Foundation
import OrderedCollections
import Synchronization
import Testing

@testable import FlowKit

/// One declaration per parameter: what validation, `flowrun tasks`, the schema, the store's key and the operation
/// derive from a task type's ``TaskParameters``.
@Suite struct TaskParametersTests {
    /// A parameter of every kind.
    struct Sample: TaskParameters {
        enum Mode: String, CaseIterable, ParameterValue { case fast, exact }
        @Parameter(help: "Where to write.") var path: String
        @Parameter(help: "How strong.", range: 0...1) var strength = 0.5
        @Parameter(help: "How many.", range: 1...) var count = 3
        @Parameter(help: "Whether to hurry.") var hurry = false
        @Parameter(help: "How long.") var wait = Duration.seconds(2)
        @Parameter(help: "Which mode.") var mode = Mode.exact
        @Parameter(help: "Some names.") var names: [String]?
        @Parameter(help: "Some headers.") var headers: StringMap?
        @Parameter(help: "A factor.", range: 0.5...2) var factor: Double?

        static var rules: [ParameterRule<Self>] {
            [.atMostOne(of: \.$factor, \.$count), .given(\.$mode, requires: \.$names)]
        }

        func validate(reading input: ProviderKind?, into diagnostics: inout Diagnostics) {
            if path.hasSuffix("/") { diagnostics.error("'\(path)' is a folder", at: $path.location) }
        }
    }

    struct SampleTask: TaskType {
        typealias Parameters = Sample
        var name: String { "sample" }
        var summary: String { "A sample." }
        var consumes: InputRequirement { .none }
        var provides: ProviderKind? { nil }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    static let here = SourceLocation(path: "w.yaml", line: 4, column: 9)

    @Test func theDeclarationGivesNamesTypesDefaultsRangesAndHelpInOrder() {
        let specs = SampleTask().parameters
        #expect(
            specs.map(\.name) == ["path", "strength", "count", "hurry", "wait", "mode", "names", "headers", "factor"])
        #expect(
            specs.map(\.type) == [
                .string, .number, .integer, .bool, .duration, .oneOf(["fast", "exact"]), .stringList, .stringMap,
                .number,
            ])
        #expect(
            specs.map(\.defaultValue) == [
                nil, .double(0.5), .int(3), .bool(false), .double(2), .string("exact"), nil, nil, nil,
            ])
        #expect(specs.filter(\.isRequired).map(\.name) == ["path"])
        #expect(specs[1].range == 0...1 && specs[2].range == 1...Double(Int.max) && specs[8].range == 0.5...2)
        #expect(specs[0].summary == "Where to write.")
        #expect(NoopTask().parameters.isEmpty)
    }

    @Test func rulesNameTheirParametersThroughKeyPaths() {
        #expect(
            SampleTask().constraints == [
                .mutuallyExclusive(["factor", "count"]), .requires(key: "mode", requires: ["names"]),
            ])
    }

    @Test func typedValuesHaveTheirDefaultsAndTheirLocations() {
        let values = ParameterValues(
            [
                "path": .string("out.txt"), "strength": .double(0.9), "wait": .string("250ms"), "mode": .string("fast"),
                "names": .list([.string("a"), .string("b")]), "headers": .map(["X": .string("1")]),
            ],
            locations: ["path": Self.here])
        let typed = Sample(values)
        #expect(typed.path == "out.txt" && typed.strength == 0.9 && typed.count == 3 && !typed.hurry)
        #expect(typed.wait == .milliseconds(250) && typed.mode == .fast && typed.names == ["a", "b"])
        #expect(typed.headers?["X"] == "1" && typed.factor == nil)
        #expect(typed.$path.name == "path" && typed.$path.location == Self.here && typed.$path.isGiven)
        #expect(typed.$strength.name == "strength" && !typed.$strength.isGiven)
    }

    @Test func theOperationReadsItsParametersTyped() async throws {
        let seen = Mutex<[String]>([])
        struct Reader: TaskType {
            struct Parameters: TaskParameters {
                @Parameter(help: "A label.") var label: String
                @Parameter(help: "A number.") var times = 2
            }
            let seen: @Sendable (String) -> Void
            var name: String { "reader" }
            var summary: String { "Reads its parameters." }
            var consumes: InputRequirement { .none }
            var provides: ProviderKind? { nil }
            func makeOperation(_ context: NodeContext) -> FlowOperation {
                let parameters = context.parameters(as: Parameters.self)
                seen("\(context.nodeID) \(parameters.label) \(parameters.times)")
                return NoopOperation(context: context)
            }
        }
        let reader = Reader { text in seen.withLock { $0.append(text) } }
        let plan = try TestWorkflow.plan(
            """
            version: 1
            params: { n: 5 }
            tasks:
              a: { type: reader, label: first }
              b: { type: reader, label: "${item}", times: "${params.n}", forEach: [x, y] }
            """, registry: TaskRegistry.builtIn.adding(reader))
        #expect(await Runner(plan: plan).run().exitCode == 0)
        #expect(seen.withLock { $0.sorted() } == ["a first 2", "b[x] x 5", "b[y] y 5"])
    }

    @Test func validationCollectsEveryProblemOfTheDeclaration() {
        let values = ParameterValues(
            ["factor": .double(1), "count": .int(2), "mode": .string("fast"), "strength": .double(0.5)],
            locations: ["factor": Self.here, "count": Self.here, "mode": Self.here])
        var located = values
        located.taskLocation = SourceLocation(path: "w.yaml", line: 3, column: 3)
        let messages = SampleTask().validate(parameters: located, task: "s").map(\.message)
        #expect(
            messages == [
                "task 's' (sample) is missing required parameter 'path'",
                "task 's' (sample) sets 'factor' and 'count', which exclude each other",
                "'mode' of task 's' needs 'names' as well",
            ])
    }

    @Test func theDeclarationsOwnChecksRunOnceEveryRequiredValueIsThere() {
        let values = ParameterValues(["path": .string("out/")], locations: ["path": Self.here])
        let diagnostics = SampleTask().validate(parameters: values, task: "s")
        #expect(diagnostics.map(\.message) == ["'out/' is a folder"])
        #expect(diagnostics.first?.location == Self.here)
    }

    @Test(
        arguments: [
            (ParameterSpec.ValueType.number, Value.double(1.5), "must be between 0 and 1, found 1.5"),
            (.integer, .double(2.5), "must be a whole number, found a number ('2.5')"),
            (.oneOf(["fast", "exact"]), .string("fats"), "must be one of fast, exact, found 'fats'"),
            (
                .duration, .string("soon"),
                "must be a duration such as 250ms, 20s or 2m, at most 8760h, found a string ('soon')"
            ),
            (.stringList, .int(3), "must be a list of text values, found an integer ('3')"),
        ])
    func eachValueIsCheckedAgainstItsDeclaredType(type: ParameterSpec.ValueType, value: Value, message: String) {
        let spec = ParameterSpec("p", type, range: 0...1, summary: "")
        guard case .failure(let problem) = spec.check(value) else {
            Issue.record("\(value) passed as \(type)")
            return
        }
        #expect(problem.message == message)
        if case .oneOf = type { #expect(problem.suggestion == "fast") }
    }

    @Test func aWorkflowGetsEveryParameterProblemLocated() throws {
        let result = WorkflowLoader(registry: TaskRegistry.builtIn.adding(SampleTask()), environment: [:]).plan(
            bytes: Array(
                """
                version: 1
                tasks:
                  s: { type: sample, strength: 3, mode: slow, factor: 1, count: 2 }
                """.utf8), path: "w.yaml")
        let lines = result.diagnostics.sorted.map { DiagnosticRenderer().headline($0) }
        #expect(
            lines == [
                "w.yaml:3:3: error: task 's' (sample) is missing required parameter 'path'",
                "w.yaml:3:32: error: parameter 'strength' of task 's' (sample) must be between 0 and 1, found 3",
                "w.yaml:3:41: error: parameter 'mode' of task 's' (sample) must be one of fast, exact, found 'slow'",
                "w.yaml:3:41: error: 'mode' of task 's' needs 'names' as well",
                "w.yaml:3:65: error: task 's' (sample) sets 'factor' and 'count', which exclude each other",
            ])
    }

    /// The key encodes a value as its declared type reads it: three spellings of one duration are one key.
    @Test func aDurationIsKeyedByItsLengthNotItsSpelling() throws {
        let spellings = [Value.string("1s"), .string("1000ms"), .int(1)]
        #expect(Set(spellings.map { NodeKeyInputs.canonical($0, as: .duration) }).count == 1)
        func key(_ duration: String) throws -> String? {
            let plan = try TestWorkflow.plan(
                "version: 1\ntasks:\n  a: { type: sleep, duration: \(duration) }", registry: .builtIn)
            return UpToDate(plan: plan, records: [:], settings: .init(optimize: true)).keys.first??.hex
        }
        #expect(try key("1s") == key("1000ms"))
        #expect(try key("1s") != key("2s"))
    }
}
