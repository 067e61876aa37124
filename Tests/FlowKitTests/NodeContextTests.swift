import FlowKitTesting
import Foundation
import Synchronization
import Testing

@testable import FlowKit

/// The context an operation receives: copy-on-write fields, and the consumers the runner looks up in the plan.
@Suite struct NodeContextTests {
    @Test func changingACopyLeavesTheOriginalAsItWas() {
        let original = NodeContext(nodeID: "a", typeName: "noop", attempt: 1, workflowDirectory: "/flows")
        var copy = original
        copy.nodeID = "b"
        copy.attempt = 2
        copy.parameters["width"] = .int(10)
        #expect(original.nodeID == "a" && original.attempt == 1 && original.parameters["width"] == nil)
        #expect(copy.nodeID == "b" && copy.attempt == 2 && copy.parameters["width"] == .int(10))
        #expect(copy.workflowDirectory == "/flows" && copy.taskID == "a")
    }

    /// Records what each node's operation sees of its consumers, two levels down.
    final class ConsumerSpy: TaskType, @unchecked Sendable {
        let seen = Mutex<[String: [String]]>([:])
        var name: String { "spy" }
        var summary: String { "records its consumers" }
        var parameters: [ParameterSpec] { [ParameterSpec("tag", .string, summary: "a label")] }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }

        func makeOperation(_ context: NodeContext) -> FlowOperation {
            let description = context.consumers.map { consumer in
                let tag = consumer.parameters["tag"]?.stringValue ?? "-"
                let below = consumer.consumers().map(\.typeName).joined(separator: "+")
                return "\(consumer.typeName):\(tag)>\(below)"
            }
            seen.withLock { $0[context.nodeID] = description.sorted() }
            return NoopOperation(context: context)
        }
    }

    @Test func theRunnerGivesEachNodeItsConsumersAndTheirs() throws {
        let spy = ConsumerSpy()
        let plan = try TestWorkflow.plan(
            """
            version: 1
            tasks:
              source: { type: spy }
              left: { type: spy, tag: L, dependsOn: source }
              right: { type: spy, tag: R, dependsOn: source }
              sink: { type: noop, dependsOn: [left, right] }
            """, registry: TaskRegistry.builtIn.adding(spy))
        #expect(Runner(plan: plan).run().exitCode == 0)
        let seen = spy.seen.withLock { $0 }
        #expect(seen["source"] == ["spy:L>noop", "spy:R>noop"])
        #expect(seen["left"] == ["noop:->"])
        #expect(seen["right"] == ["noop:->"])
    }

    @Test func aSmallListKeepsOrderAcrossItsInlineAndHeapParts() {
        var list = SmallList<Int>()
        #expect(list.isEmpty && list.count == 0 && Array(list).isEmpty)
        list.append(7)
        #expect(!list.isEmpty && list.count == 1 && Array(list) == [7])
        list.append(8)
        list.append(9)
        #expect(list.count == 3 && Array(list) == [7, 8, 9])
    }
}
