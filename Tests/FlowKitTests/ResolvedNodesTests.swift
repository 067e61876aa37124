import FlowBasics
import FlowKitTesting
import Foundation
import Testing

@testable import FlowKit

/// The store keys the nodes of per-item tasks from what validation resolved of them (``ResolvedNodes``), not by
/// resolving each node's parameters again: the keys, output paths and sources must be exactly those a second
/// resolution gives.
@Suite struct ResolvedNodesTests {
    /// Names the file it would write (``TaskType/outputPath(_:)``), with a parameter given and one defaulted.
    struct SaveTask: TaskType {
        struct Parameters: TaskParameters {
            @Parameter(help: "The file it writes.") var path: String
            @Parameter(help: "A number with a default.") var quality = 90
            @Parameter(help: "Text with a default.") var label = "none"
        }
        var name: String { "save" }
        var summary: String { "Names the file it writes." }
        var consumes: InputRequirement { .anything }
        var provides: ProviderKind? { nil }
        func outputPath(_ parameters: Parameters) -> String? { parameters.path }
        func makeOperation(_ context: NodeContext) -> FlowOperation { NoopOperation(context: context) }
    }

    static let registry = TaskRegistry.builtIn.adding(SaveTask())

    /// A folder of its own with three small files and a workflow over them whose per-item parameters are of
    /// several types, some given, some defaulted, one typed (a duration), one read by content.
    static func workflow() throws -> (folder: String, yaml: String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("resolved-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        for name in ["a", "b", "c"] {
            try Data("item \(name)\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/in/\(name).txt"))
        }
        let yaml = """
            version: 1
            tasks:
              read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}", maxBytes: 1000 }
              hashed: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item.path}", cache: content }
              wait: { type: sleep, forEach: [1s, 2000ms, 3s], duration: "${item}" }
              save: { type: save, path: "out/${item.stem}.txt", quality: 70, dependsOn: read }
              after: { type: noop, gather: true, dependsOn: [save, hashed, wait] }
            """
        return (folder, yaml)
    }

    func keys(_ plan: Plan) -> UpToDate.NodeKeys {
        let tasks = UpToDate.TaskFacts.of(plan, options: ["optimize=true"])
        return UpToDate.NodeKeys(
            plan: plan, tasks: tasks, keepsNothing: plan.nodes.map { tasks[$0.taskIndex].keepsNothing },
            revalidated: [:])
    }

    @Test func keysFromWhatValidationResolvedAreThoseOfResolvingEachNodeAgain() throws {
        let (folder, yaml) = try Self.workflow()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try TestWorkflow.plan(yaml, registry: Self.registry, path: folder + "/wf.yaml")
        let resolved = try #require(plan.resolvedNodes)
        var resolvedAgain = plan
        resolvedAgain.resolvedNodes = nil
        let fromValidation = keys(plan)
        let fromResolution = keys(resolvedAgain)
        #expect(fromValidation.keys.count == 13)
        #expect(fromValidation.keys == fromResolution.keys)
        #expect(fromValidation.outputPaths == fromResolution.outputPaths)
        #expect(fromValidation.inputs == fromResolution.inputs)
        // Per node, only what differs: the item's values, the output path, the file read.
        let save = try #require(plan.nodes.firstIndex { $0.id == "save[in/b.txt]" })
        var encoded = ByteWriter()
        let files = try #require(resolved.encodeParameters(save, of: plan.nodes[save].taskIndex, into: &encoded))
        #expect(files.outputPath == folder + "/out/b.txt")
        #expect(files.source == .none)
        var reader = ByteReader(encoded.bytes[...])
        #expect(reader.count() == 3)
        let parameters = (0..<3).map { _ in "\(reader.string() ?? "?")=\(reader.string() ?? "?")" }
        #expect(parameters == ["label=\"none\"", "path=\"out/b.txt\"", "quality=70"])
        #expect(reader.isAtEnd)
        let read = try #require(plan.nodes.firstIndex { $0.id == "read[in/a.txt]" })
        var ignored = ByteWriter()
        #expect(
            resolved.encodeParameters(read, of: plan.nodes[read].taskIndex, into: &ignored)?.source
                == .file(folder + "/in/a.txt"))
        // A task whose nodes share their parameters keeps nothing per node, and nothing is written for it.
        let after = try #require(plan.nodes.firstIndex { $0.id == "after" })
        var untouched = ByteWriter()
        #expect(resolved.encodeParameters(after, of: plan.nodes[after].taskIndex, into: &untouched) == nil)
        #expect(untouched.bytes.isEmpty)
    }

    /// A node without a value for one of its task's per-item parameters leaves it out of its key's parameters,
    /// counted so, as resolving the node again would: the bytes copied are those of the values it has.
    @Test func aPerItemParameterWithoutAValueIsLeftOutAndNotCounted() throws {
        let (folder, yaml) = try Self.workflow()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try TestWorkflow.plan(yaml, registry: Self.registry, path: folder + "/wf.yaml")
        let save = try #require(plan.workflow.tasks.firstIndex { $0.id.value == "save" })
        let first = try #require(plan.nodes.firstIndex { $0.taskIndex == save })
        let builder = ResolvedNodes.Builder(taskCount: plan.workflow.tasks.count, nodeCount: 2, directory: folder)
        builder.start(
            save, task: plan.workflow.tasks[save], type: plan.taskTypes[save],
            values: plan.parameters(of: plan.nodes[first]))
        let use = PlannedUse(access: .none, outputPath: "out/a.txt", source: .none)
        builder.record(node: 0, taskIndex: save, values: plan.parameters(of: plan.nodes[first]), use: use)
        builder.record(
            node: 1, taskIndex: save, values: ParameterValues(["label": .string("none"), "quality": .int(70)]),
            use: use)
        let resolved = try #require(builder.build())
        var encoded = ByteWriter()
        let files = try #require(resolved.encodeParameters(1, of: save, into: &encoded))
        #expect(files.outputPath == folder + "/out/a.txt")
        var expected = ByteWriter()
        expected.count(2)
        for text in ["label", "\"none\"", "quality", "70"] { expected.string(text) }
        #expect(encoded.bytes == expected.bytes)
        var whole = ByteWriter()
        _ = try #require(resolved.encodeParameters(0, of: save, into: &whole))
        var reader = ByteReader(whole.bytes[...])
        #expect(reader.count() == 3)
    }

    @Test func aRestrictedPlanKeysItsNodesAsTheWholeDoes() throws {
        let (folder, yaml) = try Self.workflow()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try TestWorkflow.plan(yaml, registry: Self.registry, path: folder + "/wf.yaml")
        let whole = keys(plan)
        // The fetches and the writes of two items, with what they depend on.
        let kept = plan.nodes.indices.filter {
            plan.nodes[$0].id.hasSuffix("[in/b.txt]") || plan.nodes[$0].id.hasSuffix("[in/c.txt]")
        }
        let restricted = keys(plan.restricted(to: kept))
        #expect(restricted.keys == kept.map { whole.keys[$0] })
        #expect(restricted.outputPaths == kept.map { whole.outputPaths[$0] })
    }

    @Test func aSourceFileChangedAfterPlanningIsKeyedAsItIsWhenTheStoreDecides() throws {
        let (folder, yaml) = try Self.workflow()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plan = try TestWorkflow.plan(yaml, registry: Self.registry, path: folder + "/wf.yaml")
        let before = keys(plan)
        try Data("item a, edited\n".utf8).write(to: URL(fileURLWithPath: folder + "/in/a.txt"))
        let after = keys(plan)
        let changed = plan.nodes.indices.filter { before.keys[$0] != after.keys[$0] }.map { plan.nodes[$0].id }
        #expect(Set(changed) == ["read[in/a.txt]", "hashed[in/a.txt]", "save[in/a.txt]"])
    }
}
