import FlowBasics
import FlowKit

/// A left-to-right layered drawing of a task graph (Sugiyama's scheme, kept small): each task's layer is its
/// longest path from a task without dependencies; an edge that spans several layers gets a waypoint in each
/// layer it crosses; the order within layers comes from a few sweeps of barycentre ordering, which removes
/// most crossings; positions are slot numbers, scaled by the caller.
struct TaskGraphLayout: Equatable {
    /// Where a task is drawn: its layer (column) and its slot within the layer (row).
    struct Position: Equatable {
        var layer: Int
        var slot: Int
    }

    /// One edge: its ends, and the slots it passes through in the layers between them.
    struct Edge: Equatable {
        var from: Int
        var to: Int
        /// The slot of the waypoint in each layer strictly between the two tasks' layers.
        var waypoints: [Int]
    }

    /// Each task's position, by index.
    var positions: [Position]
    /// The edges, dependency to dependent.
    var edges: [Edge]
    /// How many layers (columns) there are.
    var layerCount: Int
    /// The most slots any layer has (rows).
    var slotCount: Int

    /// How many barycentre sweeps (down and up) to make; crossings rarely change after a handful.
    private static let sweeps = 4

    /// Lays out tasks given each one's dependencies (indices of earlier or later tasks; cycles are not
    /// expected, since a plan has none, but an edge closing one is ignored rather than looping).
    init(dependencies: [[Int]]) {
        let count = dependencies.count
        let layer = Self.layers(dependencies)
        layerCount = (layer.max() ?? -1) + 1
        // Entries per layer: a task (>= 0) or a waypoint (-1 - index into `chains`).
        var rows = [[Int]](repeating: [], count: layerCount)
        for task in 0..<count { rows[layer[task]].append(task) }
        var chains: [(from: Int, to: Int, layers: ClosedRange<Int>?)] = []
        for task in 0..<count {
            for dependency in dependencies[task] where layer[dependency] < layer[task] {
                let span = layer[dependency] + 1 <= layer[task] - 1 ? (layer[dependency] + 1)...(layer[task] - 1) : nil
                if let span { for between in span { rows[between].append(-1 - chains.count) } }
                chains.append((dependency, task, span))
            }
        }
        // Each entry's neighbours in the layer before and after, for barycentres.
        var before: [Int: [Int]] = [:]
        var after: [Int: [Int]] = [:]
        for (number, chain) in chains.enumerated() {
            var path = [chain.from]
            if let span = chain.layers { path += span.map { _ in -1 - number } }
            path.append(chain.to)
            for (left, right) in zip(path, path.dropFirst()) {
                after[left, default: []].append(right)
                before[right, default: []].append(left)
            }
        }
        for _ in 0..<Self.sweeps {
            for index in rows.indices.dropFirst() { Self.order(&rows[index], by: before, in: rows[index - 1]) }
            for index in rows.indices.dropLast().reversed() { Self.order(&rows[index], by: after, in: rows[index + 1]) }
        }
        var positions = [Position](repeating: Position(layer: 0, slot: 0), count: count)
        var waypointSlot: [Int: Int] = [:]
        for (index, row) in rows.enumerated() {
            for (slot, entry) in row.enumerated() {
                if entry >= 0 {
                    positions[entry] = Position(layer: index, slot: slot)
                } else {
                    waypointSlot[entry] = slot
                }
            }
        }
        self.positions = positions
        edges = chains.enumerated().map { number, chain in
            Edge(
                from: chain.from, to: chain.to,
                waypoints: chain.layers.map { span in span.map { _ in waypointSlot[-1 - number] ?? 0 } } ?? [])
        }
        slotCount = rows.map(\.count).max() ?? 0
    }

    /// Longest path from a source, for every task; all in layer 0 for a graph with a cycle, which a plan never
    /// has (a hand-edited report might).
    static func layers(_ dependencies: [[Int]]) -> [Int] {
        let distinct = dependencies.map { Array(Set($0)) }
        guard let order = GraphAlgorithms.topologicalSort(count: distinct.count, predecessors: { distinct[$0] }) else {
            return [Int](repeating: 0, count: dependencies.count)
        }
        return GraphAlgorithms.levels(order: order, count: distinct.count) { task, body in distinct[task].forEach(body)
        }
    }

    /// Sorts a layer by the mean slot of each entry's neighbours in the adjacent layer (stable: entries without
    /// neighbours keep their place relative to each other).
    private static func order(_ row: inout [Int], by neighbours: [Int: [Int]], in adjacent: [Int]) {
        let slot = Dictionary(uniqueKeysWithValues: adjacent.enumerated().map { ($0.element, Double($0.offset)) })
        let keyed = row.enumerated().map { offset, entry -> (key: Double, offset: Int, entry: Int) in
            let slots = (neighbours[entry] ?? []).compactMap { slot[$0] }
            return (slots.isEmpty ? Double(offset) : slots.reduce(0, +) / Double(slots.count), offset, entry)
        }
        row = keyed.sorted { ($0.key, $0.offset) < ($1.key, $1.offset) }.map(\.entry)
    }
}
