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
        struct Parameters: TaskParameters {
            @Parameter(help: "a label") var tag: String?
        }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }

        func makeOperation(_ context: NodeContext) -> FlowOperation {
            let description = context.consumers.map { consumer in
                let tag = Parameters(consumer.parameters).tag ?? "-"
                let below = consumer.consumers().map(\.type.name).joined(separator: "+")
                return "\(consumer.type.name):\(tag)>\(below)"
            }
            seen.withLock { $0[context.nodeID] = description.sorted() }
            return NoopOperation(context: context)
        }
    }

    @Test func theRunnerGivesEachNodeItsConsumersAndTheirs() async throws {
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
        #expect(await Runner(plan: plan).run().exitCode == 0)
        let seen = spy.seen.withLock { $0 }
        #expect(seen["source"] == ["spy:L>noop", "spy:R>noop"])
        #expect(seen["left"] == ["noop:->"])
        #expect(seen["right"] == ["noop:->"])
    }

    /// Records the fields of the contexts the runner makes, and of a changed copy of each.
    final class FieldSpy: TaskType, @unchecked Sendable {
        let seen = Mutex<[String: String]>([:])
        var name: String { "fields" }
        var summary: String { "records its context" }
        struct Parameters: TaskParameters {
            @Parameter(help: "a number") var size = 3
        }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }

        static func describe(_ context: NodeContext) -> String {
            let size = String(context.parameters(as: Parameters.self).size)
            let item = context.item.map { "\($0)" } ?? "-"
            return [
                context.nodeID, context.taskID, context.typeName, context.queueName,
                context.itemIndex.map(String.init) ?? "-", item, size, context.inputTaskID ?? "-",
                String(context.attempt), context.location.map { "\($0.line)" } ?? "-", String(context.optimize),
            ].joined(separator: " ")
        }

        func makeOperation(_ context: NodeContext) -> FlowOperation {
            var changed = context
            changed.attempt = 9
            changed.queueName = "elsewhere"
            seen.withLock {
                $0[context.nodeID] = Self.describe(context)
                $0[context.nodeID + "'"] = Self.describe(changed)
            }
            return NoopOperation(context: context)
        }
    }

    @Test func aRunnersContextReadsItsFieldsFromThePlanAndChangesLikeAnyOther() async throws {
        let spy = FieldSpy()
        let plan = try TestWorkflow.plan(
            """
            version: 1
            queues: { slow: { maxConcurrent: 1 } }
            tasks:
              one: { type: fields, queue: slow, size: 5 }
              each: { type: fields, forEach: [4, 8], size: "${item}", dependsOn: one, input: one }
              same: { type: fields, forEach: [a, b], size: 7 }
              plain: { type: fields }
            """, registry: TaskRegistry.builtIn.adding(spy))
        #expect(await Runner(plan: plan, options: RunOptions(optimize: false)).run().exitCode == 0)
        let seen = spy.seen.withLock { $0 }
        #expect(seen["one"] == "one one fields slow - - 5 - 1 4 false")
        #expect(seen["one'"] == "one one fields elsewhere - - 5 - 9 4 false")
        // Parameters that depend on the item: the runner resolves them when it makes the context.
        #expect(seen["each[8]"] == "each[8] each fields default 1 8 8 one 1 5 false")
        #expect(seen["each[8]'"] == "each[8] each fields elsewhere 1 8 8 one 9 5 false")
        #expect(seen["same[b]"] == "same[b] same fields default 1 b 7 - 1 6 false")
        #expect(seen["plain"] == "plain plain fields default - - 3 - 1 7 false")
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
