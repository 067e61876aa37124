import FlowBasics
import Testing

@testable import FlowKit

/// The graph walks every layer shares, on small graphs whose answers are known, and on a chain long enough that
/// a recursive walk would overflow the stack.
@Suite struct GraphAlgorithmsTests {
    /// a(0) → b(1) → d(3), a → c(2) → d, e(4) alone: edges from each node to its successors.
    static let diamond: [[Int]] = [[1, 2], [3], [3], [], []]

    static func predecessors(of successors: [[Int]]) -> [[Int]] {
        var result = [[Int]](repeating: [], count: successors.count)
        for (node, next) in successors.enumerated() { for target in next { result[target].append(node) } }
        return result
    }

    @Test func topologicalSortPutsEveryNodeAfterItsPredecessorsLowerIndexFirst() throws {
        let before = Self.predecessors(of: Self.diamond)
        let order = try #require(GraphAlgorithms.topologicalSort(count: 5) { before[$0] })
        #expect(order == [0, 4, 1, 2, 3])
    }

    @Test func topologicalSortOfACycleIsNil() {
        let before = [[2], [0], [1], []]  // 0 after 2 after 1 after 0; 3 free
        #expect(GraphAlgorithms.topologicalSort(count: 4) { before[$0] } == nil)
    }

    @Test func findCyclesGivesEachCycleFromItsFirstNodeWithTheEdgesTaken() {
        // 0 → 1 → 2 → 0, and 2 → 3 → 3 (a self-loop), 4 → 0 outside the cycle.
        let successors = [[1], [2], [3, 0], [3], [0]]
        var cycles: [[GraphAlgorithms.CycleStep]] = []
        GraphAlgorithms.findCycles(count: 5, successors: { successors[$0] }, onCycle: { cycles.append($0) })
        #expect(
            cycles == [
                [.init(node: 3, edge: 0)],
                [.init(node: 0, edge: 0), .init(node: 1, edge: 0), .init(node: 2, edge: 1)],
            ])
    }

    @Test func findCyclesReportsNothingForADAG() {
        var found = false
        GraphAlgorithms.findCycles(count: 5, successors: { Self.diamond[$0] }, onCycle: { _ in found = true })
        #expect(!found)
    }

    @Test func levelsAreTheLongestPathToEachNode() {
        // 0 → 1 → 2, and 0 → 2 directly: 2 is two steps down, not one.
        let before = [[], [0], [0, 1]]
        let levels = GraphAlgorithms.levels(order: [0, 1, 2], count: 3) { node, body in before[node].forEach(body) }
        #expect(levels == [0, 1, 2])
    }

    @Test func visitGoesOnOnlyThroughTheNodesItIsToldTo() {
        var entered: [Int] = []
        GraphAlgorithms.visit(
            from: [0], successors: { node, body in Self.diamond[node].forEach(body) },
            enter: { node in
                entered.append(node)
                return node != 2  // pruned at c: d is reached once, through b
            })
        #expect(entered.sorted() == [1, 2, 3])
    }

    @Test func aBreadthFirstVisitEntersNearerNodesFirst() {
        // 0 → 1 → 2 → 3 → 5, and 0 → 4 → 5: every node at distance 2 (2 and 5) before any at 3.
        let successors = [[1, 4], [2], [3], [5], [5], []]
        func walk(_ visit: ([Int], (Int, (Int) -> Void) -> Void, (Int) -> Bool) -> Void) -> [Int] {
            var entered: [Int] = []
            var seen: Set = [0]
            func enter(_ node: Int) -> Bool {
                guard seen.insert(node).inserted else { return false }
                entered.append(node)
                return true
            }
            visit([0], { node, body in successors[node].forEach(body) }, enter)
            return entered
        }
        #expect(walk { GraphAlgorithms.visitBreadthFirst(from: $0, successors: $1, enter: $2) } == [1, 4, 2, 5, 3])
        // Depth first, the last successor found is followed first: 5 before 2.
        #expect(walk { GraphAlgorithms.visit(from: $0, successors: $1, enter: $2) } == [1, 4, 5, 2, 3])
    }

    @Test func reachableIncludesTheRootsAndEverythingBelow() {
        let reached = GraphAlgorithms.reachable(from: [1, 4], count: 5) { node, body in
            Self.diamond[node].forEach(body)
        }
        #expect(reached == [false, true, false, true, true])
    }

    @Test func aMillionNodeChainIsWalkedWithoutRecursion() throws {
        let count = 1_000_000
        let order = try #require(GraphAlgorithms.topologicalSort(count: count) { $0 == 0 ? [] : [$0 - 1] })
        #expect(order.first == 0 && order.last == count - 1)
        let levels = GraphAlgorithms.levels(order: order, count: count) { node, body in if node > 0 { body(node - 1) } }
        #expect(levels.last == count - 1)
        var cycles = 0
        GraphAlgorithms.findCycles(
            count: count, successors: { $0 + 1 < count ? [$0 + 1] : [] }, onCycle: { _ in cycles += 1 })
        #expect(cycles == 0)
    }
}
