import FlowKit
import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// Parameters that mention `${item…}` are resolved when each node runs. Planning checked them against the items
/// it saw; a problem found at run time (a plan whose items changed since) fails that node, naming the parameter
/// and where it is written, instead of running it with the value dropped.
@Suite struct RunTimeParameterTests {
    static let workflow = """
        version: 1
        tasks:
          wait: { type: sleep, forEach: ["1ms", "2ms", "3ms"], duration: "${item}" }
          after: { type: noop, dependsOn: wait }
        """

    /// The plan with item 1 replaced by one that is no duration.
    func planWithABadItem() throws -> Plan {
        var plan = try TestWorkflow.plan(Self.workflow, registry: .builtIn)
        let index = try #require(plan.nodes.firstIndex { $0.id == "wait[2ms]" })
        plan.nodes[index] = PlannedNode(id: "wait[2ms]", taskIndex: 0, item: .string("forever"), itemIndex: 1)
        return plan
    }

    @Test func aParameterThatFailsAtRunTimeFailsItsNodeWithTheDiagnostic() async throws {
        let report = await Runner(plan: try planWithABadItem(), options: RunOptions(maxConcurrentDefault: 2)).run()
        let failed = try #require(report.node("wait[2ms]"))
        #expect(failed.status == .failed)
        #expect(failed.code == NodeFailure.Code.invalidInput.description)
        #expect(
            failed.cause
                == "parameter 'duration' of task 'wait' (sleep) must be a duration such as 250ms, 20s or 2m, at most 8760h, found a string ('forever')"
        )
        #expect(failed.location == "test.yaml:3:66")
        #expect(failed.attempts == 1)
        #expect(report.status(of: "after[2ms]") == .skipped)
        // The other items run as planned.
        for id in ["wait[1ms]", "wait[3ms]", "after[1ms]", "after[3ms]"] {
            #expect(report.status(of: id) == .succeeded)
        }
    }

    @Test func aPlanCheckedWhenPlanningRunsEveryNode() async throws {
        let plan = try TestWorkflow.plan(Self.workflow, registry: .builtIn)
        let report = await Runner(plan: plan, options: RunOptions(maxConcurrentDefault: 2)).run()
        #expect(report.exitCode == 0)
        #expect(report.nodes.count == 6)
    }
}
