import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Signal facts about the programs `command` starts.
///
/// Before asking a program to stop, flowrun checks whether it ignores SIGTERM (a shell's `trap '' TERM`, kept
/// across `exec`): then SIGKILL at once beats waiting out the grace period.
enum CommandSignals {
    /// Whether the process `pid` ignores a signal (SIG_IGN, no handler), so sending it would be pointless.
    ///
    /// Blocked signals do not count: shells and other programs block signals for short critical sections
    /// (dash around every fork), so a blocked SIGTERM usually arrives a moment later. Reads
    /// `/proc/PID/status`; where that is unavailable, answers `false`.
    static func ignores(_ signal: Int32, pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return false }
        func mask(_ key: String) -> UInt64 {
            let line = status.split(separator: "\n").first { $0.hasPrefix(key + ":") }
            let hex = line?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? ""
            return UInt64(hex, radix: 16) ?? 0
        }
        let bit = UInt64(1) << UInt64(signal - 1)
        return mask("SigIgn") & bit != 0 && mask("SigCgt") & bit == 0
    }
}
