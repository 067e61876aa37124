import SystemPackage

extension WatchSet {
    /// What a loaded workflow reads: the files it was read from (the workflow and its imports), `extraFiles`,
    /// and, when it is valid, its list files and the folders its globs read.
    init(_ loaded: WorkflowLoader.LoadResult, extraFiles: [FilePath]) {
        var files = loaded.sources.keys.map { FilePath($0) } + extraFiles
        let trees: [Tree] = []
        for task in loaded.plan?.workflow.tasks ?? [] {
            switch task.forEach {
            case .file(let list):
                files.append(FilePath(FilePaths.normalised(list.value, in: loaded.plan?.workflow.directory ?? ".")))
            default: break
            }
        }
        self.init(files: files, trees: trees)
    }
}
