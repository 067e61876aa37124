import Foundation
import Testing

/// The `--report` and `--html` of a rerun, through the built binary: the `write`s found up to date show the
/// previews the store kept when they ran, as the run that made them did, not placeholders.
@Suite struct CachedPreviewsTests {
    let scratch: Scratch

    init() throws {
        scratch = try Scratch()
        for name in ["sunset", "wine"] {
            try FileManager.default.createDirectory(atPath: scratch.path("photos"), withIntermediateDirectories: true)
            try Fixtures.photo(name).write(to: URL(fileURLWithPath: scratch.path("photos/\(name).jpg")))
        }
        try scratch.write(
            "thumbs.yaml",
            """
            version: 1
            name: thumbs
            tasks:
              fetch: { type: fetch, forEach: { glob: "photos/*.jpg" }, url: "${item}" }
              decode: { type: decode, dependsOn: fetch }
              thumb: { type: resize, width: 32, dependsOn: decode }
              save: { type: write, path: "out/${item.stem}.jpg", dependsOn: thumb }
            """)
    }

    func run(_ arguments: [String]) async throws -> ReportView? {
        let result = try await Child.runFlowrun(
            ["thumbs.yaml", "--no-progress", "--quiet"] + arguments, in: scratch.url)
        try #require(result.status == 0, "\(result.stdout)\(result.stderr)")
        guard let report = arguments.firstIndex(of: "--report").map({ arguments[$0 + 1] }) else { return nil }
        return try ReportView(scratch.path(report))
    }

    /// The artifacts of the `save` nodes, by node id.
    func savedArtifacts(_ report: ReportView) -> [String: [String: String]] {
        var artifacts: [String: [String: String]] = [:]
        for node in report.nodes where node["task"] as? String == "save" {
            artifacts[node["id"] as? String ?? ""] = node["artifact"] as? [String: String] ?? [:]
        }
        return artifacts
    }

    func html(_ name: String) throws -> String {
        try String(contentsOfFile: scratch.path(name), encoding: .utf8)
    }

    @Test func aRerunShowsItsCachedWritesWithThePreviewsKeptWhenTheyRan() async throws {
        let first = try #require(try await run(["--report", "first.json", "--html", "first.html"]))
        let made = savedArtifacts(first)
        #expect(made.count == 2 && made.values.allSatisfy { $0["preview"] != nil && $0["path"] != nil }, "\(made)")

        let second = try #require(try await run(["--report", "second.json", "--html", "second.html"]))
        #expect(second.nodes.allSatisfy { $0["status"] as? String == "cached" })
        #expect(savedArtifacts(second) == made)
        let page = try html("second.html")
        #expect(page.components(separatedBy: "<img alt=").count - 1 == 2)
        #expect(page.contains("2 of 2 images shown"))
        #expect(!page.contains("class=\"gap\""))
        for artifact in made.values {
            #expect(page.contains(artifact["preview"] ?? "-"), "the page shows the kept preview")
        }
    }

    @Test func onlyWhatRunsIsPreviewedAnewAndTheRestComesFromTheStore() async throws {
        let first = try #require(try await run(["--report", "first.json", "--previews"]))
        let made = savedArtifacts(first)
        try Fixtures.photo("aitzgorri").write(to: URL(fileURLWithPath: scratch.path("photos/zinfandel.jpg")))

        let second = try #require(try await run(["--report", "second.json", "--html", "second.html"]))
        let shown = savedArtifacts(second)
        #expect(shown.count == 3 && shown.values.allSatisfy { $0["preview"] != nil }, "\(shown)")
        let cached = second.nodes.filter { $0["task"] as? String == "save" && $0["status"] as? String == "cached" }
        #expect(cached.count == 2)
        for node in cached {
            let id = node["id"] as? String ?? ""
            #expect(made.values.contains(shown[id] ?? [:]), "\(id) shows the preview its result was kept with")
        }
        #expect(try html("second.html").contains("3 of 3 images shown"))
    }

    @Test func aResultWrittenWithoutPreviewsShowsItsFileAndNoInventedPreview() async throws {
        _ = try await run([])
        let rerun = try #require(try await run(["--report", "rerun.json", "--html", "rerun.html"]))
        let shown = savedArtifacts(rerun)
        #expect(shown.count == 2)
        for artifact in shown.values {
            #expect(artifact["preview"] == nil)
            #expect(artifact["path"]?.hasPrefix(scratch.path("out/")) == true, "\(artifact)")
        }
        let page = try html("rerun.html")
        #expect(page.contains("0 of 2 images shown"))
        #expect(page.contains("A file found up to date has one only if it was written with previews."))
        #expect(!page.contains("class=\"gap\""))
    }

    @Test func cleaningTheStoreKeepsOnlyThePreviewsOfResultsItStillRecords() async throws {
        _ = try await run(["--previews"])
        let workflow = try String(contentsOfFile: scratch.path("thumbs.yaml"), encoding: .utf8)
        try scratch.write("thumbs.yaml", workflow.replacingOccurrences(of: "width: 32", with: "width: 24"))
        let second = try #require(try await run(["--report", "second.json", "--previews"]))
        let folder = scratch.path(".flowrun/previews")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 4)

        let clean = try await Child.runFlowrun(["cache", "clean", "thumbs.yaml", "--keep-last"], in: scratch.url)
        #expect(clean.status == 0, "\(clean.stderr)")
        let keys = second.nodes.filter { $0["task"] as? String == "save" }.compactMap { $0["key"] as? String }
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)) == Set(keys))
        #expect(keys.count == 2)
    }
}
