import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Signal hygiene for the programs `command` starts.
///
/// A spawned program inherits its signal mask from the spawning thread and every ignored disposition from the
/// process, and `Foundation.Process` offers no `POSIX_SPAWN_SETSIGMASK` / `SETSIGDEF`. Spawned from a
/// Dispatch worker thread (where operations run), the program would start with almost every signal blocked
/// (SIGTERM, SIGINT, SIGALRM, …), so it could be neither interrupted nor asked to stop. Hence: spawn from a
/// fresh thread whose mask blocks only what this process ignores anyway, and check before asking a program to
/// stop whether it ignores SIGTERM (then SIGKILL at once beats waiting out the grace period).
enum CommandSignals {
    /// Runs `body` on a new thread with a clean signal mask, and waits for it.
    ///
    /// The mask keeps blocked the signals this process ignores (flowrun ignores SIGINT and SIGTERM and
    /// observes them with Dispatch): unblocked here, a Ctrl-C arriving during the spawn could be taken by
    /// this thread and dropped. A program inherits those as ignored either way.
    static func withCleanMask<Result: Sendable>(_ body: @escaping @Sendable () -> Result) -> Result {
        let result = LockedBox<Result?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            var mask = ignoredSignals()
            pthread_sigmask(SIG_SETMASK, &mask, nil)
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }
        thread.name = "flowrun.command.spawn"
        thread.start()
        done.wait()
        guard let value = result.withLock({ $0 }) else { preconditionFailure("set before signal(), read after wait()") }
        return value
    }

    /// The standard signals whose disposition in this process is SIG_IGN.
    private static func ignoredSignals() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in 1..<32 where signal != SIGKILL && signal != SIGSTOP {
            var action = sigaction()
            guard sigaction(Int32(signal), nil, &action) == 0 else { continue }
            #if os(Linux)
                let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
            #else
                let handler = unsafeBitCast(action.__sigaction_u.__sa_handler, to: Int.self)
            #endif
            if handler == 1 { sigaddset(&set, Int32(signal)) }  // SIG_IGN is the handler value 1
        }
        return set
    }

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
