/// Why a node must run rather than be reused from the store: the first cause found, in the order the store
/// checks them.
///
/// A run holds one a node (`nil` for most), so the cases of more than one string are `indirect`: boxed, they keep
/// every element as small as one string, a third of the largest case inline.
package enum RunCause: Sendable, Equatable, CustomStringConvertible {
    /// `--force`.
    case forced
    /// `--rerun TASK`, for that task or one upstream of it.
    case rerun(task: String)
    /// The task is never reused: its type has side effects (`command` without `cache: true`) or `cache: false`.
    case notCached(String)
    /// The node reads a source that could not be checked before the run: an http(s) URL the store has no
    /// version of, whose server could not tell, or that is not asked (a node with dependencies).
    case unverifiableSource(String)
    /// The store has no result for this node: it is new, or it never finished.
    case noRecord
    /// The store has no result for this node because its last attempt failed, for this cause (``FailedNodes``).
    case failedLastRun(String)
    /// The task type's implementation version changed.
    indirect case implementationChanged(from: String, to: String)
    /// A run option that changes outputs changed (`--no-optimize`).
    case optionsChanged(from: [String], to: [String])
    /// A parameter changed; `nil` for one that was absent.
    indirect case parameterChanged(name: String, from: String?, to: String?)
    /// The file or URL a source reads changed.
    indirect case sourceChanged(from: String?, to: String?)
    /// An upstream node's key changed.
    case upstreamChanged(node: String)
    /// The output of an upstream node that runs every time changed: the digests of what it made for this
    /// node's result and since (``UpToDate/keyedByOutput``).
    indirect case inputChanged(node: String, from: NodeKey, to: NodeKey)
    /// The node's dependencies are not the same nodes as before.
    case upstreamReplaced
    /// The file the node wrote is gone.
    case outputMissing(path: String)
    /// The file the node wrote was changed since.
    case outputChanged(path: String)
    /// A node that runs reads this node's output, which is not kept.
    case neededBy(node: String)
    /// A node of a ``StatelessTask`` (`noop`), of which nothing is kept, waits for this node, which runs.
    case waitsFor(node: String)
    /// A node that runs reads this node's output, and the stored one cannot be used (missing, damaged).
    case storedOutputUnusable(String)
    /// The stored output was made for other consumers: the choice the node makes from them (``TaskType/outputVariant(facts:consumers:optimize:)``) changed.
    indirect case storedForOtherConsumers(from: String?, to: String?)

    package var description: String {
        switch self {
        case .forced: "--force"
        case .rerun(let task): "--rerun \(task)"
        case .notCached(let why): why
        case .unverifiableSource(let source):
            "its source could not be checked before the run (\(source): a run asks the server whether the version"
                + " it recorded changed, a dry run only with --check-sources); `cache: true` on the task trusts it"
                + " not to change"
        case .noRecord: "new node (no result recorded: not run before, or it did not finish)"
        case .failedLastRun(let cause): "failed last run: \(cause)"
        case .implementationChanged(let old, let new): "task implementation changed (\(old) → \(new))"
        case .optionsChanged(let old, let new):
            "run options changed (\(old.joined(separator: " ")) → \(new.joined(separator: " ")))"
        case .parameterChanged(let name, let old, let new):
            "parameter '\(name)' changed (\(old ?? "absent") → \(new ?? "absent"))"
        case .sourceChanged(let old, let new): "source changed: " + Self.difference(old, new)
        case .upstreamChanged(let node): "upstream \(node) changed"
        case .inputChanged(let node, let old, let new):
            "input from \(node) changed (digest \(old.hex.prefix(8))… → \(new.hex.prefix(8))…)"
        case .upstreamReplaced: "its dependencies changed"
        case .outputMissing(let path): "output missing: \(path)"
        case .outputChanged(let path): "output changed since it was written: \(path)"
        case .neededBy(let node): "its output is needed by \(node), which runs"
        case .waitsFor(let node):
            "it waits for \(node), which runs (nothing is kept of a noop: it runs with what it waits for)"
        case .storedOutputUnusable(let problem): "its stored output cannot be used: \(problem)"
        case .storedForOtherConsumers(let old, let new):
            "its stored output was made for other consumers (\(old ?? "none") → \(new ?? "none"))"
        }
    }

    /// The node whose own cause explains this one, for `flowrun explain`'s chain.
    package var explainedBy: String? {
        switch self {
        case .upstreamChanged(let node), .inputChanged(let node, _, _), .neededBy(let node), .waitsFor(let node): node
        default: nil
        }
    }

    /// Whether this is ``waitsFor(node:)``: a stateless node that runs because something it waits for changed.
    var isWaitingForAChange: Bool {
        if case .waitsFor = self { return true }
        return false
    }

    /// The first difference between what a node's key was made of before and now.
    static func firstDifference(from old: NodeKeyInputs, to new: NodeKeyInputs) -> RunCause? {
        if old.type != new.type || old.implementation != new.implementation {
            return .implementationChanged(
                from: "\(old.type) \(old.implementation)", to: "\(new.type) \(new.implementation)")
        }
        if old.options != new.options { return .optionsChanged(from: old.options, to: new.options) }
        if old.parameters != new.parameters {
            let names = Set(old.parameters.map(\.name)).union(new.parameters.map(\.name)).sorted()
            for name in names {
                let before = old.parameters.first { $0.name == name }?.value
                let after = new.parameters.first { $0.name == name }?.value
                if before != after { return .parameterChanged(name: name, from: before, to: after) }
            }
        }
        if old.source != new.source { return .sourceChanged(from: old.source, to: new.source) }
        if old.upstream.map(\.node) != new.upstream.map(\.node) { return .upstreamReplaced }
        for (before, after) in zip(old.upstream, new.upstream) where before.key != after.key {
            return .upstreamChanged(node: after.node)
        }
        return nil
    }
}

extension RunCause {
    /// The cause as said of one node: a `forEach` item's node with no record is a new item (its key names it,
    /// so an item inserted before it leaves its record where it was).
    package func description(forItem isItem: Bool) -> String {
        guard isItem, self == .noRecord else { return description }
        return "new item (no result recorded for this item: not run before, or it did not finish)"
    }
}
