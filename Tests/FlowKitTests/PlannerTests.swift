import Foundation
import Testing

@testable import FlowKit

/// Planning of valid workflows: forEach sources, element-wise expansion, gather, interpolation, waves.
@Suite struct PlannerTests {
    /// Plans a valid fixture by its absolute path (relative `forEach` files resolve against its folder).
    private func planFixture(
        _ name: String, params: [(name: String, value: String)] = [], environment: [String: String] = [:]
    ) throws -> Plan {
        let url = try Fixtures.bundled.appendingPathComponent("valid/\(name).yaml")
        let result = TestTasks.loader(params: params, environment: environment).plan(path: url.path)
        #expect(!result.diagnostics.hasErrors, "\(TestTasks.render(result))")
        return try #require(result.plan)
    }

    private func ids(_ plan: Plan) -> [String] { plan.nodes.map(\.id) }

    private func node(_ id: String, in plan: Plan) throws -> PlannedNode {
        try plan.nodes[index(id, in: plan)]
    }

    private func index(_ id: String, in plan: Plan) throws -> Int {
        try #require(plan.nodes.firstIndex { $0.id == id }, "no node \(id)")
    }

    private func dependencies(of id: String, in plan: Plan) throws -> [String] {
        try plan.dependencies(of: index(id, in: plan)).map { plan.nodes[$0].id }
    }

    // MARK: forEach sources

    @Test func inlineListExpandsEveryDownstreamTaskElementWise() throws {
        let plan = try planFixture("sepia-thumbnails")
        #expect(plan.nodes.count == 3 * 5 + 1)
        // Each node is named by its task and its item's key, the item itself for a list of text.
        let keys = ["photos/1.jpg", "photos/2.jpg", "https://example.org/3.jpg?size=large"]
        for task in ["fetch", "decode", "tone", "thumb", "save"] {
            #expect(keys.allSatisfy { key in ids(plan).contains("\(task)[\(key)]") }, "\(task)")
        }
        #expect(try dependencies(of: "decode[\(keys[2])]", in: plan) == ["fetch[\(keys[2])]"])
        #expect(try dependencies(of: "tone[photos/2.jpg]", in: plan) == ["decode[photos/2.jpg]"])
        #expect(try dependencies(of: "save[photos/1.jpg]", in: plan) == ["thumb[photos/1.jpg]"])
        #expect(try dependencies(of: "fetch[photos/1.jpg]", in: plan) == [])
        #expect(try node("decode[\(keys[2])]", in: plan).item == .string(keys[2]))
        #expect(try node("decode[\(keys[2])]", in: plan).itemIndex == 2)
    }

    @Test func gatherDependsOnEveryInstanceInItemOrder() throws {
        let plan = try planFixture("sepia-thumbnails")
        #expect(
            try dependencies(of: "index", in: plan) == [
                "save[photos/1.jpg]", "save[photos/2.jpg]", "save[https://example.org/3.jpg?size=large]",
            ])
        #expect(try node("index", in: plan).item == nil)
        #expect(try plan.dependents(of: index("save[photos/2.jpg]", in: plan)).map { plan.nodes[$0].id } == ["index"])
    }

    @Test func listParamExpands() throws {
        let plan = try planFixture("foreach-param")
        #expect(
            ids(plan)
                == ["fetch", "decode", "save"].flatMap { task in ["a.jpg", "sub/b.png", "c"].map { "\(task)[\($0)]" } })
        let save = try node("save[sub/b.png]", in: plan)
        #expect(plan.parameters(of: save)["path"] == .string("out/1-b.jpg"))
        #expect(plan.parameters(of: try node("save[c]", in: plan))["path"] == .string("out/2-c.jpg"))
        // A whole-value reference keeps the param's type.
        #expect(plan.parameters(of: save)["quality"] == .int(70))
    }

    @Test func fileListIsReadRelativeToTheWorkflowsFolder() throws {
        let plan = try planFixture("foreach-file")
        let fetches = ["fetch[photos/one.jpg]", "fetch[photos/two.jpg]", "fetch[https://example.org/three.png]"]
        #expect(ids(plan) == fetches + ["all"])
        let urls = plan.nodes.prefix(3).map { plan.parameters(of: $0)["url"] }
        #expect(
            urls == [.string("photos/one.jpg"), .string("photos/two.jpg"), .string("https://example.org/three.png")])
        #expect(try dependencies(of: "all", in: plan) == fetches)
    }

    @Test func globMatchesAreSortedAndRelativeToTheWorkflow() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-glob-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("photos"), withIntermediateDirectories: true)
        for name in ["b.jpg", "a.jpg", "c.jpg", "notes.txt"] {
            try Data("x".utf8).write(to: folder.appendingPathComponent("photos/\(name)"))
        }
        let workflow = folder.appendingPathComponent("glob.yaml")
        try Data(
            """
            version: 1
            tasks:
              fetch:
                type: fetch
                forEach: { glob: "photos/*.jpg" }
                url: ${item}
              save:
                type: write
                path: out/${item.stem}.png
                dependsOn: [fetch]
            """.utf8
        ).write(to: workflow)

        let result = TestTasks.loader().plan(path: workflow.path)
        let plan = try #require(result.plan, "\(TestTasks.render(result))")
        #expect(
            plan.nodes.prefix(3).map(\.item) == [
                .string("photos/a.jpg"), .string("photos/b.jpg"), .string("photos/c.jpg"),
            ])
        #expect(plan.parameters(of: try node("save[photos/c.jpg]", in: plan))["path"] == .string("out/c.png"))
        #expect(try dependencies(of: "save[photos/b.jpg]", in: plan) == ["fetch[photos/b.jpg]"])
    }

    @Test func globWithoutMatchesWarnsAndExpandsToNothing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flowrun-glob-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let workflow = folder.appendingPathComponent("glob.yaml")
        try Data(
            """
            version: 1
            tasks:
              fetch: { type: fetch, forEach: { glob: "*.jpg" }, url: "${item}" }
            """.utf8
        ).write(to: workflow)
        let result = TestTasks.loader().plan(path: workflow.path)
        let plan = try #require(result.plan)
        #expect(plan.nodes.isEmpty)
        #expect(result.diagnostics.all.map(\.severity) == [.warning])
    }

    // MARK: Interpolation per node

    @Test func itemStemIndexAndKeysResolvePerNode() throws {
        let plan = try planFixture("foreach-maps")
        let fetch1 = try node("fetch[beta]", in: plan)
        #expect(plan.parameters(of: fetch1)["url"] == .string("https://example.org/b.jpg"))
        #expect(plan.parameters(of: fetch1)["maxBytes"] == .int(200))
        #expect(plan.parameters(of: try node("save[alpha]", in: plan))["path"] == .string("out/alpha-0.jpg"))
        #expect(plan.parameters(of: try node("save[beta]", in: plan))["path"] == .string("out/beta-1.jpg"))

        let sepia = try planFixture("sepia-thumbnails")
        let stems = sepia.nodes.filter { $0.id.hasPrefix("save[") }.map { sepia.parameters(of: $0)["path"] }
        #expect(stems == [.string("out/sepia/1.jpg"), .string("out/sepia/2.jpg"), .string("out/sepia/3.jpg")])
    }

    @Test func wholeValueReferenceKeepsTheParamsType() throws {
        let plan = try planFixture("sepia-thumbnails")
        let tone = try node("tone[photos/1.jpg]", in: plan)
        #expect(plan.parameters(of: tone)["intensity"] == .double(0.8))
        #expect(plan.parameters(of: tone)["intensity"]?.doubleValue == 0.8)
    }

    @Test(arguments: [
        ("intensity", "0.5", Value.double(0.5)),
        ("intensity", "1", Value.int(1)),
        ("outDir", "elsewhere", Value.string("elsewhere")),
    ])
    func paramOverridesAreTyped(name: String, text: String, expected: Value) throws {
        let plan = try planFixture("sepia-thumbnails", params: [(name, text)])
        #expect(plan.params[name] == expected)
        if name == "intensity" {
            #expect(
                plan.parameters(of: try node("tone[https://example.org/3.jpg?size=large]", in: plan))["intensity"]
                    == expected)
        } else {
            #expect(plan.parameters(of: try node("save[photos/1.jpg]", in: plan))["path"] == .string("elsewhere/1.jpg"))
        }
    }

    @Test func overrideOutOfRangeIsReportedAtTheUse() throws {
        let url = try Fixtures.bundled.appendingPathComponent("valid/sepia-thumbnails.yaml")
        let result = TestTasks.loader(params: [("intensity", "3")]).plan(path: url.path)
        #expect(result.plan == nil)
        let messages = result.diagnostics.all.map(\.message)
        #expect(messages == ["parameter 'intensity' of task 'tone' (sepia) must be between 0 and 1, found 3"])
    }

    @Test func envReferencesResolveFromTheInjectedEnvironment() throws {
        let result = TestTasks.load(
            """
            version: 1
            tasks:
              fetch:
                type: fetch
                url: https://${env.HOST}/a.jpg
                headers: { Authorization: "Bearer ${env.TOKEN}" }
            """, environment: ["HOST": "example.org", "TOKEN": "t0k"])
        let plan = try #require(result.plan)
        let parameters = plan.parameters(of: plan.nodes[0])
        #expect(parameters["url"] == .string("https://example.org/a.jpg"))
        #expect(FetchTask.Parameters(parameters).headers?["Authorization"] == "Bearer t0k")
    }

    // MARK: Waves and safety

    @Test func wavesFollowTheLongestPath() throws {
        let plan = try planFixture("waves")
        let waves = plan.waves().map { wave in wave.map { plan.nodes[$0].id }.sorted() }
        #expect(waves == [["a", "b", "f"], ["c", "d"], ["e"]])
        #expect(try dependencies(of: "d", in: plan) == ["a", "b"])
        // Every node comes after its dependencies.
        for index in plan.nodes.indices {
            #expect(plan.dependencies(of: index).allSatisfy { $0 < index })
        }
    }

    @Test func itemStemNeverEscapesTheOutputFolder() throws {
        let plan = try planFixture("escaping-items")
        let saves = plan.nodes.filter { $0.id.hasPrefix("save[") }
        #expect(saves.count == 9)
        for save in saves {
            let path = try #require(plan.parameters(of: save)["path"]?.stringValue)
            let folder = "out/\(save.itemIndex ?? -1)/"
            #expect(path.hasPrefix(folder))
            let stem = String(path.dropFirst(folder.count).dropLast(".jpg".count))
            #expect(!stem.isEmpty && !stem.contains("/") && !stem.contains("\\"), "\(save.item ?? .null) → \(stem)")
            #expect(stem != "." && stem != ".." && !stem.hasPrefix(".."), "\(save.item ?? .null) → \(stem)")
        }
        #expect(plan.parameters(of: try node("save[../../etc/x]", in: plan))["path"]?.stringValue == "out/0/x.jpg")
    }

    @Test(arguments: [
        "../../etc/x", "..", "../", "a/..", ".", "/", "", "...", "..jpg", "x/../../y.jpg", "..\\..\\boot.ini",
    ])
    func stemIsASafeFileName(_ text: String) {
        let stem = Resolver.stem(of: text)
        #expect(!stem.isEmpty)
        #expect(!stem.contains("/") && !stem.contains("\\"))
        #expect(stem != "." && stem != ".." && !stem.hasPrefix(".."))
    }

    @Test func stemDropsDirectoryQueryAndExtension() {
        #expect(Resolver.stem(of: "photos/1.jpg") == "1")
        #expect(Resolver.stem(of: "https://example.org/a/3.jpg?size=large#top") == "3")
        #expect(Resolver.stem(of: "archive.tar.gz") == "archive.tar")
        #expect(Resolver.stem(of: ".hidden") == ".hidden")
    }

    /// Plain ASCII paths take a one-pass reading of their bytes, which says what splitting the path at its
    /// slashes and dropping the last extension says; other text is left to the general reading.
    @Test(arguments: [
        "in/f000001.txt", "a/b/c.tar.gz", "a/b/", "a//b//", "/", "", ".", "..", "...", "..jpg", ".hidden",
        "x/.hidden", "a/.b.c", "x/../../y.jpg", "noext", "dir.d/noext", "trailing.", "a/b.", "line\r\n/x.y.txt",
        "sp ace/fi le.png", "//a//b.c//",
    ])
    func aPlainPathsStemIsTheOneItsSlashesAndLastDotGive(_ text: String) throws {
        var name = Substring(text.split(separator: "/").last ?? "")
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { name = name[..<dot] }
        #expect(try #require(Resolver.plainStem(of: text)) == Resolver.safeName(String(name)))
        #expect(Resolver.stem(of: text) == Resolver.safeName(String(name)))
    }

    @Test(arguments: ["é/x.jpg", "a?b/c.jpg", "a#b/c.jpg", "a\\b.jpg", "d/b.\u{301}c"])
    func textThatIsNotPlainIsLeftToTheGeneralReading(_ text: String) {
        #expect(Resolver.plainStem(of: text) == nil)
    }

    /// ASCII text is searched byte by byte, other text Character by Character: a `.` joined to a combining mark
    /// is no extension's dot.
    @Test func stemReadsTextWithOtherThanASCIIByCharacter() {
        #expect(Resolver.stem(of: "photos/\u{E9}t\u{E9}.jpg") == "\u{E9}t\u{E9}")
        #expect(Resolver.stem(of: "d/b.\u{301}c") == "b.\u{301}c")
        #expect(Resolver.stem(of: "line\r\n/x.y.txt") == "x.y")
    }

    /// The last part of a path is found from its end: the same part splitting the whole text gives, grapheme by
    /// grapheme (a `/` joined to a combining mark separates nothing), and a URL's query or fragment left out.
    @Test(arguments: [
        "photos/1.jpg", "a//b", "a/b/", "///", "", "/", "x", "https://example.org/a/3.jpg?size=large#top",
        "https://example.org/dir/", "file?x/y", "a/\u{301}b", "/\u{301}", "é/ç.txt", "s3://bucket/k#frag/x",
        "a\r\n/b", "https://h/\u{E9}?q=/x", "x/y//",
    ])
    func theLastComponentIsThePartSplittingGives(_ text: String) {
        var path = Substring(text)
        if path.contains("://"), let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            path = path[..<query]
        }
        #expect(Resolver.lastComponent(of: text) == path.split(separator: "/").last ?? "")
        #expect(Resolver.safeName(text) == Resolver.safeName(String(text.split(separator: "/").last ?? "")))
        #expect(!Resolver.safeName(text).utf8.contains(UInt8(ascii: "/")))
    }

    /// A `/` joined to a combining mark separates no characters, but the file system splits the bytes there: the
    /// stem must hold no `/` byte, or `out/${item.stem}.txt` would name a file in a folder of its own.
    @Test func aSlashJoinedToACombiningMarkDoesNotReachTheStem() {
        #expect(Resolver.stem(of: "a/\u{301}b.txt") == "a_\u{301}b")
        #expect(Resolver.stem(of: "in/\u{301}.jpg") == "in_\u{301}")
        #expect(Resolver.safeName("x\\\u{301}y") == "x_\u{301}y")
    }

    @Test func unexpandedTasksBetweenExpandedOnesKeepTheirIds() throws {
        let result = TestTasks.load(
            """
            version: 1
            tasks:
              setup: { type: noop }
              fetch: { type: fetch, forEach: [a, b], url: "${item}", dependsOn: [setup] }
              done: { type: noop, gather: true, dependsOn: [fetch, setup] }
            """)
        let plan = try #require(result.plan, "\(TestTasks.render(result))")
        #expect(ids(plan) == ["setup", "fetch[a]", "fetch[b]", "done"])
        #expect(try dependencies(of: "fetch[b]", in: plan) == ["setup"])
        #expect(try dependencies(of: "done", in: plan) == ["setup", "fetch[a]", "fetch[b]"])
    }
}
