import ArgumentParser
import Foundation

/// Asking before a command removes or forgets something: on a terminal a question, answered on stdin; elsewhere
/// (CI, a script) no one can answer, so the command needs `--yes` and says so rather than go ahead.
enum Confirmation {
    /// Whether a question can be asked: stdin and stderr are terminals.
    static var canAsk: Bool { isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 }

    /// Whether to go ahead: `yes`, or the user's "y" to `question` on a terminal.
    /// - Parameter refusal: The error printed when there is no terminal and no `--yes` (after "error: ").
    /// - Throws: `ExitCode(2)` when no terminal can ask and `yes` is not given.
    static func confirmed(_ question: String, yes: Bool, refusal: String, terminal: Terminal) throws -> Bool {
        if yes { return true }
        guard canAsk else {
            terminal.error("error: " + refusal + "\n")
            throw ExitCode(2)
        }
        terminal.error(question + " [y/N] ")
        let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return answer == "y" || answer == "yes"
    }
}
