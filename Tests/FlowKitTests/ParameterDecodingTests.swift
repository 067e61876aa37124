import FlowImaging
import FlowKitTesting
import Foundation
import Synchronization
import Testing

@testable import FlowKit

/// A node's typed parameters are read from its values once, and shared by validation, the plan-time hooks and the
/// operation: decoding them again for each of these made validating a large per-item workflow twice as slow.
@Suite struct ParameterDecodingTests {
    /// Text that counts how often each value is read into a typed parameter.
    struct CountedText: ParameterValue {
        static let reads = Mutex<[String: Int]>([:])
        let text: String
        static var parameterType: ParameterSpec.ValueType { .string }
        var parameterValue: Value { .string(text) }

        init?(parameter value: Value) {
            guard let text = String(parameter: value) else { return nil }
            self.text = text
            Self.reads.withLock { $0[text, default: 0] += 1 }
        }

        static func count(_ text: String) -> Int { reads.withLock { $0[text] ?? 0 } }
    }

    /// Reads the file its label names (a plan-time hook that reads the typed parameters), and reads its label
    /// when it runs.
    struct LabelTask: TaskType {
        struct Parameters: TaskParameters {
            @Parameter(help: "A label.") var label: CountedText
        }
        var name: String { "label" }
        var summary: String { "Reads its label." }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }
        func fileAccess(_ parameters: Parameters) -> FileAccess {
            FileAccess(reads: [.init(parameters.label.text, from: "label")])
        }
        func outputPath(_ parameters: Parameters) -> String? { parameters.label.text }
        func makeOperation(_ context: NodeContext) -> FlowOperation {
            _ = context.parameters(as: Parameters.self).label
            return NoopOperation(context: context)
        }
    }

    @Test func eachNodeIsDecodedOnceWhenPlanningAndOnceWhenRunning() async throws {
        let tag = UUID().uuidString
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              each: { type: label, label: "${item}-\(tag)", forEach: [x, y, z] }
              shared: { type: label, label: "shared-\(tag)", dependsOn: each }
            """, registry: TaskRegistry.builtIn.adding(LabelTask()))
        #expect(["x", "y", "z"].map { CountedText.count("\($0)-\(tag)") } == [1, 1, 1])
        // Once by validation, once when the planner keeps the values its nodes share: not once per node.
        #expect(CountedText.count("shared-\(tag)") == 2)

        #expect(await Runner(plan: plan).run().exitCode == 0)
        // A node that resolves its own values at run time decodes them once; its operation reads that value.
        #expect(["x", "y", "z"].map { CountedText.count("\($0)-\(tag)") } == [2, 2, 2])
        #expect(CountedText.count("shared-\(tag)") == 2)
    }

    @Test func theStoreKeysNodesFromWhatValidationResolvedWithoutReadingTheirValuesAgain() throws {
        let tag = UUID().uuidString
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              each: { type: label, label: "${item}-\(tag)", forEach: [x, y] }
            """, registry: TaskRegistry.builtIn.adding(LabelTask()))
        let decisions = UpToDate(plan: plan, records: [:], settings: .init(optimize: true))
        #expect(decisions.keys.count == 2)
        // One read each when planning; the store's keys and output paths come from what validation kept.
        #expect(["x", "y"].map { CountedText.count("\($0)-\(tag)") } == [1, 1])
        #expect(decisions.outputPaths == ["x-\(tag)", "y-\(tag)"])
    }

    /// A label that names its item, and a note that does not.
    struct NotedTask: TaskType {
        struct Parameters: TaskParameters {
            @Parameter(help: "A label.") var label: CountedText
            @Parameter(help: "A note.") var note: CountedText
            @Parameter(help: "A count.") var count = 3
        }
        var name: String { "noted" }
        var summary: String { "Reads its label and note." }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }
        func makeOperation(_ context: NodeContext) -> FlowOperation {
            let parameters = context.parameters(as: Parameters.self)
            _ = (parameters.label, parameters.note)
            return NoopOperation(context: context)
        }
    }

    @Test func whatTheNodesOfATaskShareIsReadOnceWhenPlanningNotOncePerNode() async throws {
        let tag = UUID().uuidString
        let line = "  each: { type: noted, label: \"${item}-\(tag)\", note: \"note-\(tag)\", forEach: [x, y, z] }"
        let plan = try TestWorkflow.plan(
            "version: 1\ntasks:\n\(line)\n", registry: TaskRegistry.builtIn.adding(NotedTask()))
        // Once by validation and once by the planner, each for the whole task; each label once, by validation.
        #expect(CountedText.count("note-\(tag)") == 2)
        #expect(["x", "y", "z"].map { CountedText.count("\($0)-\(tag)") } == [1, 1, 1])

        // Every node has the shared note as if read on its own: its value, and where it is written.
        let noteColumn =
            line.distance(from: line.startIndex, to: try #require(line.range(of: "\"note-")).lowerBound) + 1
        for (index, item) in ["x", "y", "z"].enumerated() {
            let typed = NotedTask.Parameters(plan.parameters(of: plan.nodes[index]))
            #expect(typed.label.text == "\(item)-\(tag)")
            #expect(typed.note.text == "note-\(tag)")
            #expect(typed.$note.location.map { [$0.line, $0.column] } == [3, noteColumn])
            #expect(typed.count == 3 && typed.$count.name == "count" && !typed.$count.isGiven)
        }
        #expect(CountedText.count("note-\(tag)") == 2)

        #expect(await Runner(plan: plan).run().exitCode == 0)
        #expect(CountedText.count("note-\(tag)") == 2)
        #expect(["x", "y", "z"].map { CountedText.count("\($0)-\(tag)") } == [3, 3, 3])
    }

    /// ``NotedTask`` with its label listed among the parameters an item may set.
    struct ItemLabelTask: TaskType {
        struct Parameters: TaskParameters {
            @Parameter(help: "A label.") var label: CountedText
            @Parameter(help: "A note.") var note: CountedText
            @Parameter(help: "A count.") var count = 3
            static var itemParameters: [ItemParameter<Self>] { [.storage(\._label)] }
            /// How often a value of this type was read whole.
            static let reads = Mutex(0)

            enum CodingKeys: String, CodingKey { case label, note, count }
            init() {}
            init(from decoder: any Decoder) throws {
                Self.reads.withLock { $0 += 1 }
                let container = try decoder.container(keyedBy: CodingKeys.self)
                _label = try container.decode(Parameter<CountedText>.self, forKey: .label)
                _note = try container.decode(Parameter<CountedText>.self, forKey: .note)
                _count = try container.decode(Parameter<Int>.self, forKey: .count)
            }
        }
        var name: String { "item-label" }
        var summary: String { "Reads its label and note." }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    @Test func theItemSetsItsValuesInACopyOfTheTaskParametersReadOnce() throws {
        ItemLabelTask.Parameters.reads.withLock { $0 = 0 }
        let tag = UUID().uuidString
        let line = "  each: { type: item-label, label: \"${item}-\(tag)\", note: \"note-\(tag)\", forEach: [x, y] }"
        let plan = try TestWorkflow.plan(
            "version: 1\ntasks:\n\(line)\n", registry: TaskRegistry.builtIn.adding(ItemLabelTask()))
        let readsForTwo = ItemLabelTask.Parameters.reads.withLock { $0 }
        #expect(CountedText.count("note-\(tag)") == 2)
        #expect(["x", "y"].map { CountedText.count("\($0)-\(tag)") } == [1, 1])

        // Each node's parameters as set are those read whole from its values: values, names and locations.
        let column = { (text: String) in
            line.distance(from: line.startIndex, to: line.range(of: text)!.lowerBound) + 1
        }
        for (index, item) in ["x", "y"].enumerated() {
            let values = plan.parameters(of: plan.nodes[index])
            let set = try #require(values.decoded as? ItemLabelTask.Parameters)
            var changed = values
            changed["label"] = values["label"]  // drops the decoded parameters: read whole again
            let read = ItemLabelTask.Parameters(changed)
            for typed in [set, read] {
                #expect(typed.label.text == "\(item)-\(tag)" && typed.$label.name == "label")
                #expect(typed.$label.location.map { [$0.line, $0.column] } == [3, column("\"${item}")])
                #expect(typed.note.text == "note-\(tag)")
                #expect(typed.$note.location.map { [$0.line, $0.column] } == [3, column("\"note-")])
                #expect(typed.count == 3 && typed.$count.name == "count" && !typed.$count.isGiven)
            }
        }

        // Read whole per task, not per node: four items cost what two did.
        let readsBefore = ItemLabelTask.Parameters.reads.withLock { $0 }
        _ = try TestWorkflow.plan(
            "version: 1\ntasks:\n  each: { type: item-label, label: \"${item}\", note: n, forEach: [a, b, c, d] }\n",
            registry: TaskRegistry.builtIn.adding(ItemLabelTask()))
        #expect(ItemLabelTask.Parameters.reads.withLock { $0 } - readsBefore == readsForTwo)
    }

    /// A built-in type that lets the item set its parameters lists every one: one left out would make each node
    /// of a task naming the item in it read all its parameters again, silently.
    @Test func builtInTypesThatListItemParametersListEveryParameter() {
        func names<Type: TaskType>(of type: Type) -> (listed: Set<String>, declared: Set<String>) {
            (Set(Type.Parameters.itemParametersByName.keys), Set(type.parameters.map(\.name)))
        }
        let listing = TaskRegistry.standard.all.map { names(of: $0) }.filter { !$0.listed.isEmpty }
        #expect(listing.count >= 3)  // command, fetch and write at least
        for (listed, declared) in listing { #expect(listed == declared) }
    }

    @Test func changingAValueDropsTheDecodedParameters() throws {
        let tag = UUID().uuidString
        let plan = try TestWorkflow.plan(
            "version: 1\ntasks:\n  one: { type: label, label: first-\(tag) }\n",
            registry: TaskRegistry.builtIn.adding(LabelTask()))
        var values = plan.parameters(of: plan.nodes[0])
        #expect(LabelTask.Parameters(values).label.text == "first-\(tag)")
        values["label"] = .string("second-\(tag)")
        #expect(LabelTask.Parameters(values).label.text == "second-\(tag)")
    }
}
