import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// Nothing is kept of a `noop` (``StatelessTask``): the store keys one only where a kept node's key needs it, never
/// journals one, and decides it from what it waits for.
extension UpToDateTests {
    static let noops = """
        version: 1
        tasks:
          a: { type: noop }
          b: { type: noop, dependsOn: a }
          s: { type: sleep, duration: 1ms, dependsOn: b }
          t: { type: noop, dependsOn: s }
          u: { type: noop, dependsOn: t }
        """

    @Test func aNoopIsKeyedOnlyWhereAKeptNodeDependsOnIt() throws {
        let plan = try TestWorkflow.plan(Self.noops, registry: .builtIn)
        let cold = UpToDate(plan: plan, records: [:], settings: .init())
        #expect(cold.keys.map { $0 != nil } == [true, true, true, false, false])
        #expect(cold.keepsNothing == [true, true, false, true, true])
        #expect(cold.inputs[2]?.upstream.map(\.key) == [try #require(cold.keys[1])])
        #expect(cold.causes == [.noRecord, .noRecord, .noRecord, .noRecord, .noRecord])
        #expect(records(of: plan, cold).values.map(\.node) == ["s"])
    }

    @Test func aNoopIsUpToDateWhileNothingItWaitsForRuns() throws {
        let plan = try TestWorkflow.plan(Self.noops, registry: .builtIn)
        let records = records(of: plan, UpToDate(plan: plan, records: [:], settings: .init()))
        let warm = UpToDate(plan: plan, records: records, settings: .init())
        #expect(warm.causes.allSatisfy { $0 == nil })
        #expect(warm.cachedNodes == [0, 1, 2, 3, 4])

        let changed = try TestWorkflow.plan(
            Self.noops.replacingOccurrences(of: "duration: 1ms", with: "duration: 2ms"), registry: .builtIn)
        let decided = UpToDate(plan: changed, records: records, settings: .init())
        #expect(decided.causes[0] == nil && decided.causes[1] == nil)
        #expect(decided.causes[2] == .parameterChanged(name: "duration", from: "0.001", to: "0.002"))
        #expect(decided.causes[3] == .waitsFor(node: "s"))
        #expect(decided.causes[4] == .waitsFor(node: "t"))
        #expect(decided.causes[4]?.explainedBy == "t")

        let rerun = UpToDate(plan: plan, records: records, settings: .init(rerun: ["a"]))
        #expect(rerun.causes == Array(repeating: .rerun(task: "a"), count: 5))
    }

    /// The cost the store must not have: a chain of noops computes no key, and a cold store looks up no record.
    @Test func aChainOfNoopsIsNeitherKeyedNorLookedUp() throws {
        let chain = (1..<200).map { "  t\($0): { type: noop, dependsOn: t\($0 - 1) }" }
        let plan = try TestWorkflow.plan(
            (["version: 1", "tasks:", "  t0: { type: noop }"] + chain).joined(separator: "\n"), registry: .builtIn)
        let cold = UpToDate(plan: plan, records: [:], settings: .init())
        #expect(cold.keys.allSatisfy { $0 == nil } && cold.inputs.isEmpty)
        #expect(cold.records.foundByKey.isEmpty, "a cold store holds no records to look up")
        #expect(cold.causes.allSatisfy { $0 == .noRecord })
    }
}
