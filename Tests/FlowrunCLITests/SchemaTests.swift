import FlowKit
import Foundation
import Testing

/// Validates workflows against `flowrun schema` with a real JSON Schema validator (python3-jsonschema's
/// Draft 2020-12 validator), as an editor with yaml-language-server would.
@Suite struct SchemaTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static var shippedWorkflows: [String] {
        let folder = repository.appendingPathComponent("workflows")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }

    /// Converts a workflow to JSON with flowrun's own YAML loader and validates it; returns the validator's
    /// complaint, or `nil` when valid.
    func complaint(about yaml: [UInt8], scratch: Scratch) throws -> String? {
        var diagnostics = Diagnostics()
        let root = try #require(YAMLDocument.parse(yaml, path: "w.yaml", diagnostics: &diagnostics))
        let instance = Data(root.value.json.json())
        try instance.write(to: URL(fileURLWithPath: scratch.path("instance.json")))
        let schema = try Flowrun.run(["schema"])
        #expect(schema.status == 0)
        try schema.stdout.write(toFile: scratch.path("schema.json"), atomically: true, encoding: .utf8)

        let (status, text) = try runToEnd(
            "/usr/bin/python3",
            [
                "-c",
                """
                import json, sys
                import jsonschema
                schema = json.load(open(sys.argv[1]))
                jsonschema.Draft202012Validator.check_schema(schema)
                errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))), key=str)
                print("\\n".join(e.message for e in errors))
                sys.exit(1 if errors else 0)
                """, scratch.path("schema.json"), scratch.path("instance.json"),
            ])
        #expect(
            !text.contains("ModuleNotFoundError"), "python3-jsonschema is missing: apt-get install python3-jsonschema")
        return status == 0 ? nil : text
    }

    @Test(arguments: shippedWorkflows)
    func everyShippedWorkflowMatchesTheSchema(name: String) throws {
        let scratch = try Scratch()
        let bytes = try Array(Data(contentsOf: Self.repository.appendingPathComponent("workflows/\(name)")))
        let complaint = try complaint(about: bytes, scratch: scratch)
        #expect(complaint == nil, "\(name): \(complaint ?? "")")
    }

    @Test func theSchemaRejectsWhatTheValidatorRejects() throws {
        let scratch = try Scratch()
        let cases: [(String, String)] = [
            ("unknown top-level key", "version: 1\nnmae: x\ntasks:\n  a: { type: noop }\n"),
            ("unknown task key", "version: 1\ntasks:\n  a: { type: sleep, duraton: 1s }\n"),
            ("missing required parameter", "version: 1\ntasks:\n  a: { type: sleep }\n"),
            ("parameters that exclude each other", "version: 1\ntasks:\n  a: { type: resize, scale: 0.5, width: 9 }\n"),
            ("wrong version", "version: 2\ntasks:\n  a: { type: noop }\n"),
            ("unknown type", "version: 1\ntasks:\n  a: { type: sleeep }\n"),
            ("bad queue limit", "version: 1\nqueues: { q: { maxConcurrent: 0 } }\ntasks:\n  a: { type: noop }\n"),
            ("bad runIf", "version: 1\ntasks:\n  a: { type: noop, runIf: allways }\n"),
            ("bad retryOn", "version: 1\ntasks:\n  a: { type: noop, retryOn: [sometimes] }\n"),
            ("per-task key in defaults", "version: 1\ndefaults: { dependsOn: a }\ntasks:\n  a: { type: noop }\n"),
            ("unknown key beside uses", "version: 1\ntasks:\n  a: { uses: p.yaml, type: noop }\n"),
        ]
        for (what, yaml) in cases {
            #expect(try complaint(about: Array(yaml.utf8), scratch: scratch) != nil, "the schema accepted: \(what)")
        }
    }

    @Test func theSchemaAcceptsTheAuthoringKeys() throws {
        let yaml = """
            version: 1
            x-retry: &retry { retries: 2, retryOn: [transient, status: [404, 410]] }
            defaults: { queue: default, timeout: 20s, runIf: success, sleep: { duration: 1ms } }
            tasks:
              a: { <<: *retry, type: fetch, url: a.jpg }
              b: { uses: pipelines/thumbs.yaml, with: { width: 320 }, dependsOn: a }
              c: { type: noop, dependsOn: b, runIf: always }
            """
        let complaint = try complaint(about: Array(yaml.utf8), scratch: try Scratch())
        #expect(complaint == nil, "\(complaint ?? "")")
    }

    @Test func theSchemaIsVersion202012WithDescriptions() throws {
        let schema = try Flowrun.run(["schema"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(schema.stdout.utf8)) as? [String: Any])
        #expect(object["$schema"] as? String == "https://json-schema.org/draft/2020-12/schema")
        let properties = try #require(object["properties"] as? [String: [String: Any]])
        #expect(properties.values.allSatisfy { $0["description"] is String })
    }
}
