import Foundation

extension RunStore {
    /// Journals a node that succeeded in this run, with what it wrote, if it writes a file.
    /// - Parameters:
    ///   - index: The node's index in ``Plan/nodes``.
    ///   - plan: The plan being run.
    ///   - decisions: The keys and output paths computed before the run.
    ///   - run: This run's id (its start time, ISO 8601).
    public func journal(_ index: Int, of plan: Plan, decisions: UpToDate, run: String) {
        var output: OutputRecord?
        if let path = decisions.outputPaths[index] {
            // A file that cannot be read back is not recorded as written: the next run writes it again.
            guard let stamp = FileStamp(path: path), let digest = ContentDigest.ofFile(atPath: path) else { return }
            output = OutputRecord(path: path, stamp: stamp, sha256: digest)
        }
        append(
            JournalRecord(
                run: run, node: plan.nodes[index].id, key: decisions.keys[index], inputs: decisions.inputs[index],
                output: output))
    }
}
