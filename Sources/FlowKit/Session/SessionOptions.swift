/// What a ``RunSession`` asks of the store and of the run: where results are kept, what may be reused, and how
/// the nodes run.
public struct SessionOptions: Sendable {
    /// The folder of the store and of shard reports; `nil` for `.flowrun` beside the workflow.
    public var stateDirectory: String?
    /// Whether the session reads and writes the store; without it every node runs and nothing is recorded.
    public var usesStore: Bool
    /// Run every node even when the store has its result (the results are recorded).
    public var force: Bool
    /// Run these tasks, by id, and everything downstream of them, even when up to date.
    public var rerun: Set<String>
    /// Whether a dry run (``RunSession/preview()``, `explain`) asks the servers of http(s) sources whether the
    /// versions the store recorded are still current, as a run does. Without it a dry run asks nothing: the nodes
    /// resting on such a source are up to date if its server confirms the recorded version.
    public var checkSources = false
    /// How the nodes run: queues, retries, failing fast, logging, events, and ``RunOptions/optimize`` and
    /// ``RunOptions/previews``, which the store's decisions follow too.
    public var run: RunOptions
    /// Where the session tells of what does not stop it: a store it cannot use or found damaged (warnings), and
    /// what part of a split run it runs (notes). Called on the thread that found it; keep it cheap.
    public var onDiagnostic: (@Sendable (Diagnostic) -> Void)?
    /// What cancels the session's run while it is prepared as well as while it runs (see ``RunCancellation``);
    /// without it, cancel the ``PreparedRun/runner``.
    public var cancellation: RunCancellation?
    /// Called with each runner the session starts, as it starts, to show their progress together
    /// (``Runner/progress()``): a run with a list made at run time starts several — its producers, each batch of
    /// items that streamed while they ran, then the rest —, each counting only the nodes it runs.
    public var onRunnerStart: (@Sendable (Runner) -> Void)?
    /// The part of a split run this session runs (`--shard`, `--gather`).
    package var part: SessionPart.Request = .whole
    /// Whether a store in a folder keeps a copy of every file a `write` makes (`files/` in the store,
    /// `--keep-outputs`), so that one that goes missing is restored rather than made again. A store in a bucket
    /// always keeps them (under `files/` in the bucket).
    public var keepsWrittenFiles = false
    /// Whether a `write` that is up to date but whose file is gone gets the file back from the store's copy,
    /// checked against its recorded digest, instead of running with its chain; `false` for `--no-restore`.
    public var restoresWrittenFiles = true
    /// Whether a store in a bucket is only read (`--cache-read-only`): the run uses its results and uploads
    /// nothing — no records, blobs or files — keeping its own on this machine.
    public var cacheReadOnly = false
    /// The archive of written files a store in a bucket keeps; set by the session that pulled the bucket.
    package var bucketArchive: BucketFileArchive?

    /// Where the store in `directory` keeps copies of written files, if it keeps them.
    func archive(storeDirectory directory: String) -> (any WrittenFileArchive)? {
        if let bucketArchive { return bucketArchive }
        return keepsWrittenFiles ? FolderFileArchive(storeDirectory: directory, warn: { [self] in warn($0) }) : nil
    }

    /// Creates options: by default a store beside the workflow, nothing forced.
    public init(
        stateDirectory: String? = nil, usesStore: Bool = true, force: Bool = false, rerun: Set<String> = [],
        run: RunOptions = RunOptions(), onDiagnostic: (@Sendable (Diagnostic) -> Void)? = nil
    ) {
        self.stateDirectory = stateDirectory
        self.usesStore = usesStore
        self.force = force
        self.rerun = rerun
        self.run = run
        self.onDiagnostic = onDiagnostic
    }

    /// A runner of the session starts: ``cancellation`` reaches it, and ``onRunnerStart`` is told.
    func starting(_ runner: Runner) {
        cancellation?.cover(runner)
        onRunnerStart?(runner)
    }

    /// Tells ``onDiagnostic`` of a warning with no place in a file.
    func warn(_ message: String) {
        onDiagnostic?(Diagnostic(.warning, message, at: nil))
    }

    /// Tells ``onDiagnostic`` of a note with no place in a file.
    func note(_ message: String) {
        onDiagnostic?(Diagnostic(.note, message, at: nil))
    }
}
