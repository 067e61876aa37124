import FlowBasics
import FlowKit

/// The chain of nodes that decided how long a run took: from the node that ended last, back through the
/// dependency that ended last before it started (the one it was waiting for), to a node that waited for none.
///
/// Shortening any other node would not have ended the run sooner; shortening one of these might.
enum CriticalPath {
    /// The nodes of the critical path, earliest first; empty when nothing ran.
    static func nodes(of nodes: RunReport.Nodes, dependencies: [[Int]]) -> [Int] {
        // Each node's end, read once: a runner's report makes a node every time one is read.
        let ends = nodes.map(\.end)
        func lastToEnd(_ candidates: some Collection<Int>) -> Int? {
            candidates.filter { ends[$0] != nil }.max { (ends[$0] ?? 0, $0) < (ends[$1] ?? 0, $1) }
        }
        guard let last = lastToEnd(ends.indices) else { return [] }
        // A walk that follows one edge from each node: to the dependency that ended last.
        var path = [last]
        var seen: Set = [last]
        func latestDependency(of node: Int, _ body: (Int) -> Void) {
            if let dependency = lastToEnd(dependencies[node]) { body(dependency) }
        }
        func enter(_ dependency: Int) -> Bool {
            guard seen.insert(dependency).inserted else { return false }
            path.append(dependency)
            return true
        }
        GraphAlgorithms.visit(from: CollectionOfOne(last), successors: latestDependency, enter: enter)
        return path.reversed()
    }
}
