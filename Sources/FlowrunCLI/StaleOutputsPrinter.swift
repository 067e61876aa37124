import FlowKit

/// What `flowrun cache status` and `flowrun cache clean --stale` say of the files earlier runs wrote that the
/// workflow no longer produces.
enum StaleOutputsPrinter {
    /// The lines `cache status` ends with.
    static func status(_ stale: [StaleOutput]) -> String {
        guard !stale.isEmpty else { return "stale outputs: none\n" }
        var out =
            "stale outputs: \(files(stale.count)) earlier runs wrote that the workflow no longer produces "
            + "(`flowrun cache clean --stale` removes those that still hold what flowrun wrote):\n"
        for output in stale {
            out += "  \(output.path) (written by \(output.node)"
            if let link = output.link {
                out += "; reached through the symbolic link \(link), so it is kept)\n"
            } else {
                out +=
                    output.intact
                    ? ")\n"
                    : output.unchecked ? "; its bucket could not be listed)\n" : "; changed since, so it is kept)\n"
            }
        }
        return out
    }

    /// Why a stale output is left, after "left PATH (written by NODE): ".
    static func reason(_ output: StaleOutput) -> String {
        if let link = output.link {
            return "\(link) is a symbolic link, and flowrun removes nothing through one"
        }
        if output.unchecked { return "its bucket could not be listed to check it" }
        return "changed since flowrun wrote it"
    }

    /// What `cache clean --stale` did, or with `dryRun` would do: a line a file, then the counts.
    /// - Parameter none: What is said when there is no file.
    static func clean(_ stale: [StaleOutput], dryRun: Bool, none: String = "no stale outputs\n") -> String {
        guard !stale.isEmpty else { return none }
        let (remove, leave) = dryRun ? ("would remove", "would leave") : ("removed", "left")
        var out = ""
        for output in stale {
            out +=
                output.intact
                ? "\(remove) \(output.path) (written by \(output.node))\n"
                : "\(leave) \(output.path) (written by \(output.node)): \(reason(output))\n"
        }
        let removed = stale.filter(\.intact).count
        out += "\(remove) \(files(removed)); \(leave) \(files(stale.count - removed))\n"
        return out
    }

    private static func files(_ count: Int) -> String { "\(count) file\(count == 1 ? "" : "s")" }
}
