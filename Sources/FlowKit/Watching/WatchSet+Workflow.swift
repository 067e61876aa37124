import SystemPackage

extension WatchSet {
    /// What a loaded workflow reads: the files it was read from (the workflow and its imports), `extraFiles`,
    /// and, when it is valid, its list files and the folders its globs read.
    init(_ loaded: WorkflowLoader.LoadResult, extraFiles: [FilePath]) {
        var files = loaded.sources.keys.map { FilePath($0) } + extraFiles
        var trees: [Tree] = []
        if let workflow = loaded.plan?.workflow {
            let directory = FilePath(workflow.directory)
            for case let spec? in workflow.tasks.map(\.forEach) {
                switch spec {
                case .file(let list): files.append(Self.path(list.value, in: directory))
                case .glob(let glob): trees += Self.trees(of: glob, in: directory)
                case .list, .reference: break
                }
            }
        }
        self.init(files: files, trees: trees)
    }

    /// A path as a workflow writes it, taken from the workflow's folder; a path that still holds a `${…}`
    /// reference is watched up to the folder before it.
    private static func path(_ text: String, in directory: FilePath) -> FilePath {
        let fixed = text.range(of: "${").map { String(text[..<$0.lowerBound]) } ?? text
        let path = FilePath(fixed)
        return path.isAbsolute || directory.isEmpty || directory == "." ? path : directory.pushing(path)
    }

    /// One tree per include pattern, from its fixed folder, counting the files the glob would match.
    private static func trees(of glob: GlobSpec, in directory: FilePath) -> [Tree] {
        let excludes = glob.excludes.compactMap { try? GlobPattern($0.value, ignoreCase: glob.ignoreCase) }
        return glob.patterns.map { text -> Tree in
            guard !text.value.contains("${"), let pattern = try? GlobPattern(text.value, ignoreCase: glob.ignoreCase)
            else {
                // The pattern depends on a param or variable: every file below its fixed part counts.
                return Tree(root: path(text.value, in: directory).removingLastComponent())
            }
            return Tree(root: path(pattern.base, in: directory)) { changed in
                // Patterns name files from the workflow's folder, as the glob's walk does.
                var named = changed
                if !pattern.base.hasPrefix("/"), directory != ".", !directory.isEmpty, !named.removePrefix(directory) {
                    return false
                }
                let relative = named.string
                return pattern.matches(relative) && !excludes.contains { $0.matches(relative) }
            }
        }
    }
}
