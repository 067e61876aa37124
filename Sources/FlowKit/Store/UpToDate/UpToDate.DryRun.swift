extension UpToDate {
    /// How a dry run (`flowrun validate`, `run --dry-run`, `explain`) keys and decides the nodes whose source
    /// cannot be checked ahead (an http(s) URL): with keys that are the same on every call, never one of a single
    /// run, and saying what can be known without the network.
    package enum DryRun: Sendable, Equatable {
        /// The servers were asked, as a run asks them (``SourceRevalidation``, `--check-sources`): a source they
        /// confirmed is keyed by its version, any other runs, as it would in a run.
        case sourcesAsked
        /// No server was asked: a source a run would ask about is keyed by the version the store recorded, and
        /// the nodes resting on it are up to date if its server confirms that version
        /// (``UpToDate/awaitingConfirmation``).
        case sourcesNotAsked
    }

    /// How one node's source that cannot be checked ahead goes into its key, and whether it makes the node run.
    struct UncheckedSource {
        /// The source as its key has it.
        var keyed: String
        /// The source when it makes the node run (``RunPolicy/unverifiableSource``); `nil` when the store decides.
        var unverifiable: String?
        /// Whether the node is keyed by the version the store recorded, pending its server's confirmation.
        var awaitsConfirmation = false

        /// - Parameters:
        ///   - source: The source's identity before anyone asks its server.
        ///   - recorded: The source identity the store recorded after the node last ran, if it did (a run does not
        ///     look it up: it asked the servers already).
        ///   - isSourceNode: Whether the node has no dependencies: only such nodes are asked before a run.
        ///   - dryRun: How a dry run decides; `nil` for a run.
        ///   - runNonce: This run's id: in a run, an unchecked source gets a key of this run only, so it runs and
        ///     everything downstream with it, whatever the version it then reads is recorded as.
        init(_ source: SourceIdentity, recorded: String?, isSourceNode: Bool, dryRun: DryRun?, runNonce: String) {
            guard let dryRun else {
                keyed = "\(source) run \(runNonce)"
                unverifiable = source.description
                return
            }
            if dryRun == .sourcesNotAsked, isSourceNode, let recorded {
                keyed = recorded
                awaitsConfirmation = true
            } else {
                // The version is learned when the node runs. A node never run before is new, whatever its source.
                keyed = "\(source) unchecked"
                unverifiable = recorded == nil && isSourceNode ? nil : source.description
            }
        }
    }
}
