import ArgumentParser
import FlowKit

/// `flowrun schema`: the JSON Schema of the workflow format, for editors.
struct SchemaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "schema",
        abstract: "Print the JSON Schema (draft 2020-12) of the workflow format.",
        discussion: "For yaml-language-server, add `# yaml-language-server: $schema=flowrun.schema.json` to a workflow."
    )

    func run() throws {
        Terminal().print(String(decoding: WorkflowSchema.json(for: CommandEnvironment.registry), as: UTF8.self) + "\n")
    }
}
