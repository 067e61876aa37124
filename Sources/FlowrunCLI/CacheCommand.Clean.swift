import ArgumentParser
import FlowKit

extension CacheCommand {
    /// `flowrun cache clean WORKFLOW`: empties the store, or removes the stale outputs of earlier runs.
    struct Clean: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "clean",
            abstract: "Empty the store (the next run runs everything), or remove the stale outputs of earlier runs.")

        @OptionGroup var location: Location

        @Flag(help: "Keep each node's latest result (what the next run can reuse); drop only superseded records.")
        var keepLast = false

        @Option(
            help: ArgumentHelp(
                "Drop the results of runs that started longer ago than this (45s, 90m, 12h, 30d, 2w).",
                valueName: "AGE"))
        var maxAge: String?

        @Option(
            help: ArgumentHelp(
                """
                Drop superseded results, then the oldest, until the blobs and file copies the rest point at fit \
                (500MB, 10GB, 2GiB).
                """, valueName: "SIZE"))
        var maxSize: String?

        @Option(
            help: ArgumentHelp(
                """
                In a bucket: leave the objects no record points at that are younger than this, which a run \
                uploads before its records (default \(StoreRetention.text(ofAge: BucketStore.defaultGrace))).
                """, valueName: "AGE"))
        var grace: String?

        @Flag(
            help: """
                Remove only the files earlier runs wrote that the workflow no longer produces, where they still \
                hold what flowrun wrote; the store's results stay.
                """)
        var stale = false

        @Flag(help: "With --stale: list what would be removed and left, and change nothing.")
        var dryRun = false

        func validate() throws {
            if stale && (keepLast || maxAge != nil || maxSize != nil) {
                throw ValidationError(
                    "--stale keeps the store's results already; drop --keep-last, --max-age and --max-size")
            }
            if dryRun && !stale { throw ValidationError("--dry-run goes with --stale") }
            _ = try retention()
            if grace != nil && (stale || !BucketStore.isBucket(location.stateDir)) {
                throw ValidationError(
                    "--grace is for cleaning a store in a bucket (--state-dir s3://…); a local store is locked instead")
            }
            _ = try graceDuration()
        }

        /// The results to keep, as the flags say.
        func retention() throws -> StoreRetention {
            var retention = StoreRetention(keepLast: keepLast)
            if let maxAge {
                guard let age = StoreRetention.age(maxAge) else {
                    throw ValidationError(
                        "--max-age '\(maxAge)' is not an age: write a whole number with s, m, h, d or w (30d)")
                }
                retention.maxAge = age
            }
            if let maxSize {
                guard let size = StoreRetention.size(maxSize) else {
                    throw ValidationError(
                        "--max-size '\(maxSize)' is not a size: write a number with B, KB, MB, GB, TB or KiB, MiB, "
                            + "GiB, TiB (10GB)")
                }
                retention.maxSize = size
            }
            return retention
        }

        func graceDuration() throws -> Duration {
            guard let grace else { return BucketStore.defaultGrace }
            guard let age = StoreRetention.age(grace) else {
                throw ValidationError(
                    "--grace '\(grace)' is not an age: write a whole number with s, m, h, d or w (1h)")
            }
            return age
        }

        func run() throws {
            let terminal = Terminal()
            if BucketStore.isBucket(location.stateDir) {
                if stale { return try Self.cleanStaleInBucket(location, dryRun: dryRun, terminal: terminal) }
                return try cleanBucket(terminal: terminal)
            }
            let retention = try retention()
            try Self.cleaning(location, terminal: terminal, command: "cache clean") {
                if stale {
                    try Self.cleanStale(location, dryRun: dryRun, terminal: terminal)
                    return
                }
                let status = try RunStore.clean(
                    directory: location.directory, name: location.name, keeping: retention)
                terminal.print("cleaned; " + CacheCommand.describe(status, directory: location.directory))
            }
        }

        /// Cleans a store in a bucket: its segments, then the objects no record points at.
        private func cleanBucket(terminal: Terminal) throws {
            let (retention, grace) = (try retention(), try graceDuration())
            let (url, cleaned) = try terminal.exitOnFailure { () throws(SessionError) in
                let bucket = try BucketStore(location.directory) { terminal.error("warning: \($0)\n") }
                return (bucket.url, try bucket.clean(workflowName: location.name, keeping: retention, grace: grace))
            }
            var removed =
                "cleaned; removed \(cleaned.segmentsRemoved) segment\(cleaned.segmentsRemoved == 1 ? "" : "s") and "
                + "\(cleaned.objectsRemoved) object\(cleaned.objectsRemoved == 1 ? "" : "s") "
                + "(\(CacheCommand.size(cleaned.bytesRemoved)))"
            if cleaned.recentUnreferenced > 0 {
                removed +=
                    "; left \(cleaned.recentUnreferenced) unreferenced object"
                    + "\(cleaned.recentUnreferenced == 1 ? "" : "s") younger than \(StoreRetention.text(ofAge: grace)) "
                    + "(--grace)"
            }
            terminal.print(removed + "\n" + CacheCommand.describe(cleaned.status, directory: url))
        }

        /// Runs `body` on a local store, printing its errors: a store in use or not the store's own is exit 2.
        static func cleaning(
            _ location: Location, terminal: Terminal, command: String, _ body: () throws -> Void
        ) throws {
            if BucketStore.isBucket(location.stateDir) {
                terminal.error(
                    "error: \(command) does not work on a store in a bucket (\(location.directory)): it would need "
                        + "a lock no bucket has; `flowrun cache clean --state-dir \(location.directory)` empties or "
                        + "trims the workflow's part of the bucket\n")
                throw ExitCode(2)
            }
            do {
                try body()
            } catch let error as StoreError {
                terminal.error("error: \(error)\n")
                throw ExitCode(2)
            } catch let exit as ExitCode {
                throw exit
            } catch {
                terminal.error("error: cannot clean \(location.directory): \(RunCommand.reason(error))\n")
                throw ExitCode(1)
            }
        }

        /// ``cleanStale(_:dryRun:terminal:)`` for a store in a bucket: its records are pulled as a run pulls them,
        /// and the files they name that the workflow no longer writes are removed; the bucket is not written.
        static func cleanStaleInBucket(_ location: Location, dryRun: Bool, terminal: Terminal) throws {
            let bucket = try terminal.exitOnFailure { () throws(SessionError) in
                try BucketStore(location.directory) { terminal.error("warning: \($0)\n") }
            }
            let produced = try location.producedOutputs(terminal: terminal)
            let directory = bucket.localDirectory
            do {
                let found =
                    dryRun
                    ? RunStore.staleOutputs(directory: directory, name: location.name, producing: produced)
                    : try RunStore.removeStaleOutputs(
                        directory: directory, name: location.name, producing: produced, forgetting: false)
                terminal.print(StaleOutputsPrinter.clean(found, dryRun: dryRun))
            } catch let error as StoreError {
                terminal.error("error: \(error)\n")
                throw ExitCode(2)
            }
        }

        /// Removes (or with `dryRun` lists) the stale outputs of earlier runs.
        static func cleanStale(_ location: Location, dryRun: Bool, terminal: Terminal) throws {
            let produced = try location.producedOutputs(terminal: terminal)
            if dryRun {
                let found = RunStore.staleOutputs(
                    directory: location.directory, name: location.name, producing: produced)
                terminal.print(StaleOutputsPrinter.clean(found, dryRun: true))
                return
            }
            let found = try RunStore.removeStaleOutputs(
                directory: location.directory, name: location.name, producing: produced)
            terminal.print(StaleOutputsPrinter.clean(found, dryRun: false))
        }
    }
}
