import Foundation

/// The files a run's up-to-date nodes wrote in an earlier run, as its report shows them: each with the preview
/// the store kept when the node ran (``PreviewStore``), so the `--report` and `--html` of a rerun show what the
/// workflow made, not a page of placeholders.
enum CachedArtifacts {
    /// The report with an ``Artifact`` on each `cached` node that writes a file: with its kept preview while the
    /// run keeps fewer than ``Artifact/maxPreviewsPerRun`` (the nodes that ran count first), its path alone after.
    /// Called only for runs that ask for previews, as the runner records artifacts only then.
    static func add(to report: RunReport, decisions: UpToDate, previews: PreviewStore) -> RunReport {
        let paths = decisions.outputPaths
        var budget = Artifact.maxPreviewsPerRun
        for index in paths.indices where paths[index] != nil && decisions.causes[index] != nil {
            if report.nodes[index].artifact?.preview != nil { budget -= 1 }
        }
        var kept: [Int: Data] = [:]
        if FileManager.default.fileExists(atPath: previews.directory) {
            for index in decisions.cachedNodes where budget > 0 && paths[index] != nil {
                guard let key = decisions.keys[index], let preview = previews.preview(for: key) else { continue }
                kept[index] = preview
                budget -= 1
            }
        }
        return report.amendingNodes { [kept] index, node in
            guard node.status == .cached || node.status == .restored, node.artifact == nil, let path = paths[index]
            else { return }
            node.artifact = Artifact(path: URL(fileURLWithPath: path).standardizedFileURL.path, preview: kept[index])
        }
    }
}
