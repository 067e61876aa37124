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
        var current = ends.indices.filter { ends[$0] != nil }.max { (ends[$0] ?? 0, $0) < (ends[$1] ?? 0, $1) }
        var path: [Int] = []
        var seen = Set<Int>()
        while let index = current, seen.insert(index).inserted {
            path.append(index)
            current = dependencies[index].filter { ends[$0] != nil }.max { (ends[$0] ?? 0, $0) < (ends[$1] ?? 0, $1) }
        }
        return path.reversed()
    }
}
