import ArgumentParser
import FlowKit
import Foundation

/// `flowrun report [render] run.json --html run.html`: renders a report saved with `--report` as the HTML page
/// `--html` writes after a run.
struct RenderReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render", abstract: "Render a saved run report (--report run.json) as an HTML page.")

    @Argument(
        help: "A run report written by `flowrun WORKFLOW --report run.json`.", completion: .file(extensions: ["json"]))
    var report: String

    @Option(help: ArgumentHelp("The HTML page to write.", valueName: "run.html"))
    var html: String

    func run() throws {
        let terminal = Terminal()
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: report))
        } catch {
            terminal.error("error: cannot read '\(report)': \(RunCommand.reason(error))\n")
            throw ExitCode(2)
        }
        let decoded: RunReport
        do {
            decoded = try RunReport(jsonData: data)
        } catch {
            terminal.error("error: '\(report)' is not a flowrun run report: \(Self.describe(error))\n")
            terminal.error("    hint: write one with `flowrun WORKFLOW --report run.json`\n")
            throw ExitCode(2)
        }
        do {
            try HTMLReport.write(decoded, to: html)
        } catch {
            terminal.error("error: \(error)\n")
            throw ExitCode(1)
        }
    }

    /// A decoding error in a sentence: what was wrong, and where in the JSON.
    static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "missing '\(key.stringValue)'\(path(context))"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "\(context.debugDescription)\(path(context))"
        case .dataCorrupted(let context)?:
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return (underlying ?? context.debugDescription) + path(context)
        default: return "\(error)"
        }
    }
}
