import OrderedCollections

/// One entry of `tasks:`, as written.
package struct TaskSpec: Sendable {
    /// The task id, at its key.
    package var id: Located<String>
    /// The `type`, at its value.
    package var type: Located<String>
    /// The `dependsOn` ids, each at its own token.
    package var dependsOn: [Located<String>]
    /// The `queue`, if given.
    package var queue: Located<String>?
    /// The `priority` within the queue.
    package var priority: PriorityName
    /// How many more times a failed attempt is retried.
    package var retries: Int
    /// Which failures are retried; `nil` for the default (see ``RetryRule``).
    package var retryOn: RetryRule?
    /// When the task runs, given how its dependencies ended.
    package var runIf: RunCondition = .success
    /// The per-attempt time limit.
    package var timeout: Duration?
    /// Whether a failure counts as success for the exit code (dependents are still skipped).
    package var continueOnError: Bool
    /// Which dependency to read when several provide the consumed kind.
    package var input: Located<String>?
    /// The list the task is expanded over.
    package var forEach: ForEachSpec?
    /// Whether the task runs once, after every instance of its expanded dependencies.
    package var gather: Bool
    /// How the store may reuse this task's results (`cache:`); `nil` for the task type's default.
    package var cache: CacheSetting?
    /// The imported pipeline the task comes from, as a dotted path of `uses:` task ids (`thumbs`,
    /// `site.thumbs`); `nil` for a task of the workflow itself. Its `${params.NAME}` are the group's params.
    package var group: String?
    /// The type's own parameters, by key, as written (interpolated per node at planning).
    package var parameters: OrderedDictionary<String, YAMLPair>
    /// The task's key in the `tasks:` map.
    package var location: SourceLocation { id.location }

    /// Creates a task spec.
    package init(
        id: Located<String>, type: Located<String>, dependsOn: [Located<String>] = [], queue: Located<String>? = nil,
        priority: PriorityName = .normal, retries: Int = 0, timeout: Duration? = nil, continueOnError: Bool = false,
        input: Located<String>? = nil, forEach: ForEachSpec? = nil, gather: Bool = false,
        parameters: OrderedDictionary<String, YAMLPair> = [:]
    ) {
        self.id = id
        self.type = type
        self.dependsOn = dependsOn
        self.queue = queue
        self.priority = priority
        self.retries = retries
        self.timeout = timeout
        self.continueOnError = continueOnError
        self.input = input
        self.forEach = forEach
        self.gather = gather
        self.parameters = parameters
    }

    /// Whether any parameter mentions `${item…}`, so parameters differ from node to node.
    package var usesItem: Bool {
        var ignored = Diagnostics()
        return parameters.values.contains { pair in
            ReferenceScanner.references(in: pair.value, diagnostics: &ignored).contains { $0.0.needsItem }
        }
    }

    /// The name a `${params.NAME}` of this task resolves to among the workflow's params: the group's own.
    package func paramName(_ name: String) -> String { group.map { "\($0).\(name)" } ?? name }

    /// The queue name the task runs on.
    package var queueName: String { queue?.value ?? QueueSpec.defaultName }
}

/// Where a `forEach` list comes from.
package enum ForEachSpec: Sendable {
    /// `forEach: [a, b, c]`, or `forEach: { list: [...], key: name }` where map items name their key.
    case list([YAMLNode], SourceLocation, key: Located<String>? = nil)
    /// `forEach: ${params.photos}` — a reference to a list parameter — or `{ list: ${params.photos}, key: … }`.
    case reference(YAMLNode, key: Located<String>? = nil)
    /// `forEach: { file: photos.txt }` — one item per non-empty line, relative to the workflow file.
    case file(Located<String>)
    /// `forEach: { glob: "photos/**/*.jpg" }` — the matching paths, sorted by their bytes.
    case glob(GlobSpec)
    /// `forEach: { from: TASK }` — the list a task provides when it runs (a JSON array, or lines of text), or
    /// `{ from: TASK, key: name }` where map items name their key.
    case from(Located<String>, key: Located<String>? = nil)

    /// Where the list is written.
    package var location: SourceLocation {
        switch self {
        case .list(_, let location, _): location
        case .reference(let node, _): node.location
        case .file(let path): path.location
        case .glob(let glob): glob.location
        case .from(let producer, _): producer.location
        }
    }

    /// The field of map items that is each item's key (`forEach: { list: …, key: name }`).
    package var keyField: Located<String>? {
        switch self {
        case .list(_, _, let key), .reference(_, let key), .from(_, let key): key
        case .file, .glob: nil
        }
    }

    /// The task whose output the list is, for a list made at run time.
    package var producer: Located<String>? {
        if case .from(let producer, _) = self { producer } else { nil }
    }

    /// The paths and patterns the list is read from, which may hold `${params.…}` and `${env.…}`.
    package var paths: [Located<String>] {
        switch self {
        case .list, .reference, .from: []
        case .file(let path): [path]
        case .glob(let glob): glob.patterns + glob.excludes
        }
    }
}

/// `forEach: { glob: PATTERN or [PATTERN…], exclude: PATTERN or [PATTERN…], ignoreCase: BOOL }`.
package struct GlobSpec: Sendable {
    /// The patterns whose matches are the items, relative to the workflow's folder.
    package var patterns: [Located<String>]
    /// Patterns whose matches are left out, and folders not entered.
    package var excludes: [Located<String>] = []
    /// Whether letters after each pattern's fixed folder match either case (`*.jpg` matches `IMG.JPG`).
    package var ignoreCase = false
    /// Where the `glob:` is written.
    package var location: SourceLocation
}

/// A task's `cache:` setting: how the store may reuse its nodes' results across runs.
public enum CacheSetting: String, Sendable, CaseIterable {
    /// `cache: true`: reuse results, even of a task type that is not cached by default (`command`).
    case enabled = "true"
    /// `cache: false`: always run.
    case disabled = "false"
    /// `cache: content`: reuse results, and identify a source file by its content's hash rather than by its
    /// size, modification time and inode.
    case content
}
