import SystemPackage

extension WatchSet {
    /// What a loaded workflow reads: the files it was read from (the workflow and its imports), `extraFiles`,
    /// and, when it is valid, its list files and the folders its globs read, with their `${params.…}` and
    /// `${env.…}` references filled in as the plan filled them — never the store's folder (`storeDirectory`).
    init(_ loaded: WorkflowLoader.LoadResult, extraFiles: [FilePath], storeDirectory: String? = nil) {
        var files = loaded.sources.keys.map { FilePath($0) } + extraFiles
        var trees: [Tree] = []
        if let plan = loaded.plan {
            let directory = FilePath(plan.workflow.directory)
            for task in plan.workflow.tasks {
                let scope = Scope(params: plan.params, environment: plan.environment, group: task.group)
                switch task.forEach {
                case .file(let list): files.append(Self.path(Self.resolved(list, in: scope), in: directory))
                case .glob(let glob): trees += Self.trees(of: glob, in: directory, scope: scope)
                case .list, .reference, .from, nil: break
                }
            }
        }
        self.init(
            files: files, trees: trees, ignoredFolders: Set(storeDirectory.map { [FilePath($0)] } ?? []))
    }

    /// A path or pattern with its references filled in, as the plan filled them.
    private static func resolved(_ text: Located<String>, in scope: Scope) -> String {
        var ignored = Diagnostics()  // planning reported them
        return ForEachExpansion.interpolated(text, scope, &ignored).value
    }

    /// A path as a workflow writes it, taken from the workflow's folder.
    private static func path(_ text: String, in directory: FilePath) -> FilePath {
        let path = FilePath(text)
        return path.isAbsolute || directory.isEmpty || directory == "." ? path : directory.pushing(path)
    }

    /// One tree per include pattern, from its fixed folder, counting the files the glob would match.
    private static func trees(of glob: GlobSpec, in directory: FilePath, scope: Scope) -> [Tree] {
        let excludes = glob.excludes.compactMap {
            try? GlobPattern(resolved($0, in: scope), ignoreCase: glob.ignoreCase)
        }
        return glob.patterns.compactMap { text -> Tree? in
            guard let pattern = try? GlobPattern(resolved(text, in: scope), ignoreCase: glob.ignoreCase) else {
                return nil  // planning reported it
            }
            // Patterns name files from the workflow's folder, as the glob's walk does.
            @Sendable func named(_ changed: FilePath) -> String? {
                var named = changed
                if !pattern.base.hasPrefix("/"), directory != ".", !directory.isEmpty, !named.removePrefix(directory) {
                    return nil
                }
                return named.string
            }
            return Tree(
                root: path(pattern.base, in: directory),
                matches: { changed in
                    guard let relative = named(changed) else { return false }
                    return pattern.matches(relative) && !excludes.contains { $0.matches(relative) }
                },
                descends: { folder in
                    guard let relative = named(folder) else { return false }
                    return pattern.mayMatch(inside: relative) && !excludes.contains { $0.matches(relative) }
                })
        }
    }
}
