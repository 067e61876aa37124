import Foundation
import Testing

/// A `write` may not replace what the workflow is made of — its own file, a pipeline it uses, a `forEach`
/// list, an `--env-file` — nor anything in its store: each is refused before anything runs, and the file is
/// left as it was.
@Suite struct DefinitionWriteTests {
    @Test func writesOverTheWorkflowsOwnFilesAreRefused() async throws {
        let scratch = try Scratch()
        try scratch.write("lib/part.yaml", "version: 1\ntasks:\n  inner: { type: noop }\n")
        try scratch.write("list.txt", "a\nb\n")
        try scratch.write("vars.env", "X=1\n")
        let workflow = """
            version: 1
            tasks:
              part: { uses: lib/part.yaml }
              each: { type: noop, forEach: { file: list.txt } }
              read: { type: fetch, url: "\(Fixtures.photoPath("wine"))" }
              self: { type: write, path: flow.yaml, dependsOn: read }
              pipeline: { type: write, path: lib/../lib/part.yaml, dependsOn: read }
              list: { type: write, path: ./list.txt, dependsOn: read }
              env: { type: write, path: vars.env, dependsOn: read }
              store: { type: write, path: .flowrun/flow.yaml.journal, dependsOn: read }
            """
        try scratch.write("flow.yaml", workflow)
        let result = try await Flowrun.runOffPool(
            ["flow.yaml", "--env-file", "vars.env", "--no-progress"], in: scratch.url)
        #expect(result.status == 2)
        let errors = result.stderr.split(separator: "\n").filter { $0.contains(": error: ") }
        #expect(
            errors == [
                "flow.yaml:6:30: error: 'self' writes 'flow.yaml', which is the workflow file",
                "flow.yaml:7:34: error: 'pipeline' writes 'lib/part.yaml', which is a file the workflow is loaded from",
                "flow.yaml:8:30: error: 'list' writes 'list.txt', which is the forEach list of 'each'",
                "flow.yaml:9:29: error: 'env' writes 'vars.env', which is a file the workflow is loaded from",
                "flow.yaml:10:31: error: 'store' writes '.flowrun/flow.yaml.journal', which is inside the store",
            ], "\(result.stderr)")
        #expect(try String(contentsOfFile: scratch.path("flow.yaml"), encoding: .utf8) == workflow)
        #expect(try String(contentsOfFile: scratch.path("list.txt"), encoding: .utf8) == "a\nb\n")
    }
}
