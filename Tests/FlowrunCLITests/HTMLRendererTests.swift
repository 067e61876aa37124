import FlowBasics
import Foundation
import Testing

@testable import FlowKit
@testable import FlowrunCLI

/// The page's parts on their own: graph layout, critical path, aggregation of huge runs, links and escaping.
@Suite struct HTMLRendererTests {
    @Test func aDiamondTakesThreeLayersAndTwoSlots() {
        let layout = TaskGraphLayout(dependencies: [[], [0], [0], [1, 2]])
        #expect(layout.positions.map(\.layer) == [0, 1, 1, 2])
        #expect(layout.layerCount == 3 && layout.slotCount == 2)
        #expect(layout.edges.count == 4 && layout.edges.allSatisfy { $0.waypoints.isEmpty })
    }

    @Test func anEdgeAcrossLayersGetsAWaypointInEachLayerBetween() {
        // a → b → c → d, and a → d: the long edge passes layers 1 and 2.
        let layout = TaskGraphLayout(dependencies: [[], [0], [1], [2, 0]])
        let long = layout.edges.first { $0.from == 0 && $0.to == 3 }
        #expect(long?.waypoints.count == 2)
        #expect(layout.slotCount == 2)
    }

    @Test func barycentreOrderingUncrossesEdges() {
        // Written so that the first guess crosses: a, b in layer 0; c (← b) before d (← a) in layer 1.
        let layout = TaskGraphLayout(dependencies: [[], [], [1], [0]])
        #expect(layout.positions[0].slot < layout.positions[1].slot)
        #expect(layout.positions[3].slot < layout.positions[2].slot)
    }

    @Test func aLongChainIsLaidOutWithoutDeepRecursion() {
        let count = 20_000
        let layout = TaskGraphLayout(dependencies: (0..<count).map { $0 == 0 ? [] : [$0 - 1] })
        #expect(layout.layerCount == count && layout.slotCount == 1)
    }

    @Test func theCriticalPathFollowsTheDependencyThatEndedLast() {
        // a 0–1; b 1–3 and c 1–2 after a; d 3–4 after b and c; e 0–0.5 alone.
        let nodes = [
            Self.node("a", 0, 1), Self.node("b", 1, 3), Self.node("c", 1, 2), Self.node("d", 3, 4),
            Self.node("e", 0, 0.5),
        ]
        #expect(CriticalPath.nodes(of: .init(nodes), dependencies: [[], [0], [0], [1, 2], []]) == [0, 1, 3])
        #expect(CriticalPath.nodes(of: .init([Self.node("x", nil, nil)]), dependencies: [[]]).isEmpty)
    }

    @Test func everyStatusHasAColourIncludingOnesThePageDoesNotKnow() {
        let css = StatusPalette.css
        for status in NodeStatus.allCases {
            #expect(css.contains("--s-\(status.rawValue):"))
            #expect(css.contains(".s-\(status.rawValue){"))
        }
        #expect(Set(StatusPalette.ordered) == Set(NodeStatus.allCases))
        #expect(StatusPalette.ordered.first == .failed && StatusPalette.ordered.last == .succeeded)
    }

    @Test func aHundredThousandNodesAggregateIntoABoundedPage() throws {
        let items = 50_000
        var nodes: [RunReport.Node] = []
        for item in 0..<items {
            let failed = item % 1000 == 7
            var fetch = Self.node(
                "fetch[\(item)]", Double(item) * 0.001, Double(item) * 0.001 + 0.0008, task: "fetch",
                item: item)
            if failed {
                fetch.status = .failed
                fetch.cause = "HTTP 404"
            }
            nodes.append(fetch)
            var save = Self.node(
                "save[\(item)]", Double(item) * 0.001 + 0.0008, Double(item) * 0.001 + 0.001, task: "save",
                item: item)
            save.dependencies = [nodes.count - 1]
            if failed {
                save.status = .skipped
                save.spans = []
            }
            nodes.append(save)
        }
        var report = RunReport(
            workflow: "big", path: "big.yaml", startedAt: Date(), duration: Double(items) * 0.001, interrupted: false,
            nodes: .init(nodes), queueLimits: ["default": 1])
        report.tasks = [
            .init(
                id: "fetch", type: "fetch", queue: "default", dependsOn: [], location: "big.yaml:3:3", forEach: true,
                gather: false),
            .init(
                id: "save", type: "write", queue: "default", dependsOn: ["fetch"], location: "big.yaml:4:3",
                forEach: true, gather: false),
        ]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("big.html").path
        try HTMLReport.write(report, to: path)
        let page = try String(contentsOfFile: path, encoding: .utf8)
        #expect(page.utf8.count < 4_000_000, "\(page.utf8.count) bytes")
        #expect(page.contains("each cell stands for 5 items"))
        let cells = page.components(separatedBy: "<i class=\"s-").count - 1
        #expect(cells == 20_000)
        #expect(page.contains("items 5–9: 1 failed, 4 succeeded\nfetch[7] failed: HTTP 404"))
        #expect(page.contains("99950 attempts: each lane shows when its slot was busy"))
        #expect(page.contains("<h2>Failures (50)</h2>"))
    }

    @Test func theContactSheetShowsPreviewsAndGapsAndSaysWhenPreviewsRanOut() throws {
        var shown = Self.node("save[one]", 0, 1, task: "save", item: 0)
        shown.artifact = Artifact(path: "/tmp/out/a.jpg", preview: Data([0xFF, 0xD8, 0xFF]))
        var beyond = Self.node("save[two]", 0, 1, task: "save", item: 1)
        beyond.artifact = Artifact(path: "/tmp/out/b.jpg")
        var failed = Self.node("save[three]", 0, 1, task: "save", item: 2)
        failed.status = .failed
        failed.cause = "disk full"
        var report = Self.report([shown, beyond, failed])
        report.tasks = [
            .init(
                id: "save", type: "write", queue: "default", dependsOn: [], location: "", forEach: true, gather: false)
        ]
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try HTMLReport.write(report, to: folder.appendingPathComponent("page.html").path)
        let page = try String(contentsOf: folder.appendingPathComponent("page.html"), encoding: .utf8)
        #expect(page.contains("1 of 3 images shown"))
        #expect(page.contains("Previews are kept for the first \(Artifact.maxPreviewsPerRun) images of a run."))
        #expect(page.components(separatedBy: "<figure").count - 1 == 2)
        #expect(page.contains("src=\"data:image/jpeg;base64,/9j/\""))
        #expect(page.contains("<span>disk full</span>"))
        #expect(!page.contains("b.jpg"))
    }

    @Test func anInterruptedRunSaysSoAndCountsItsCancelledNodes() throws {
        var cancelled = Self.node("slow", nil, nil)
        cancelled.status = .cancelled
        cancelled.cause = "cancelled: the run was interrupted"
        var report = RunReport(
            workflow: "w", path: "w.yaml", startedAt: Date(), duration: 1, interrupted: true,
            nodes: .init([Self.node("quick", 0, 0.5), cancelled]), queueLimits: ["default": 2])
        report.tasks = []
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("html-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try HTMLReport.write(report, to: folder.appendingPathComponent("page.html").path)
        let page = try String(contentsOf: folder.appendingPathComponent("page.html"), encoding: .utf8)
        #expect(page.contains("<span class=\"exit s-cancelled\">exit 130: interrupted</span>"))
        #expect(page.contains("<p>1 node cancelled: cancelled: the run was interrupted</p>"))
        #expect(page.contains("<h2>Failures (0)</h2>"))
        // The tasks of a report without a task list come from its nodes.
        #expect(page.components(separatedBy: "<g class=\"task\"").count - 1 == 2)
    }

    @Test func linksToWrittenFilesAreRelativeToThePageAndEncoded() {
        let page = HTMLReport(report: Self.report([]), pageDirectory: "/tmp/a/pages")
        #expect(page.link(to: "/tmp/a/out/x y#1.jpg") == "../out/x%20y%231.jpg")
        #expect(page.link(to: "/tmp/a/pages/z.jpg") == "z.jpg")
    }

    @Test func textIsEscapedForContentAndAttributes() {
        #expect(MarkupText.escaped(#"<a href="x">&'"#, for: .html) == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(MarkupText.escaped("plain é", for: .html) == "plain é")
    }

    static func node(_ id: String, _ start: Double?, _ end: Double?, task: String? = nil, item: Int? = nil)
        -> RunReport.Node
    {
        RunReport.Node(
            id: id, task: task ?? id, item: item, type: "noop", queue: "default", status: .succeeded,
            attempts: start == nil ? 0 : 1,
            code: nil, cause: nil, location: nil, continueOnError: false,
            spans: start.map { [RunReport.Span(start: $0, end: end ?? $0, lane: 0, attempt: 1)] } ?? [])
    }

    static func report(_ nodes: [RunReport.Node]) -> RunReport {
        RunReport(
            workflow: "w", path: "w.yaml", startedAt: Date(), duration: 1, interrupted: false, nodes: .init(nodes),
            queueLimits: [:])
    }
}
