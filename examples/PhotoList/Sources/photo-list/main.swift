import FlowImaging
import FlowKit
import Foundation

// The photo-list app of Operation tutorials, on FlowKit: a list of 30 rows, 10 on the screen, a thumbnail per
// row made by a workflow (fetch → decode → thumb → save, and an index gathering them). While it runs the
// user flings the list from rows 0–9 to rows 20–29: the app suspends both queues for the scroll, cancels the
// rows that left the screen, starts the rows that came into view first, and resumes.

/// Rows as short ranges: `3–9 11 13–29`.
func ranges(_ rows: [Int]) -> String {
    var parts: [String] = []
    var start = 0
    while start < rows.count {
        var end = start
        while end + 1 < rows.count && rows[end + 1] == rows[end] + 1 { end += 1 }
        parts.append(end == start ? "\(rows[start])" : "\(rows[start])–\(rows[end])")
        start = end + 1
    }
    return parts.joined(separator: " ")
}

let rowCount = 30
let screen = 10
let newScreen = 20..<30

let package = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
let repository = package.deletingLastPathComponent().deletingLastPathComponent()
let output = package.appendingPathComponent("out")
let (photoFolder, photos) = PhotoRows.photos(in: repository)
guard !photos.isEmpty else {
    print("photo-list: no photos in \(photoFolder.path)")
    exit(1)
}
try PhotoRows.write(count: rowCount, cycling: photos, to: output.appendingPathComponent("rows.txt"))

let workflow = package.appendingPathComponent("workflows/photo-list.yaml").path
let loaded = WorkflowLoader(registry: .standard).plan(path: workflow)
guard let plan = loaded.plan else {
    print(DiagnosticRenderer(sources: loaded.sources).render(loaded.diagnostics))
    exit(2)
}

let log = RunLog()
// The store of results (`out/.flowrun`): what an earlier launch made is not made again. Remove `out` to start over.
let session = RunSession(
    plan: plan,
    options: SessionOptions(
        stateDirectory: output.appendingPathComponent(".flowrun").path, run: RunOptions(observer: log.record),
        onDiagnostic: { print("photo-list: \($0.severity): \($0.message)") }))
let prepared: PreparedRun
do {
    prepared = try session.prepare()
} catch {
    print("photo-list: \(error)")
    exit(2)
}
let runner = prepared.runner
print(
    "photo-list: \(rowCount) rows over the \(photos.count) photos of \(photoFolder.path); \(screen) fit on the screen")
try runner.prioritize(items: 0..<screen)
print("prioritised rows 0–\(screen - 1): on the screen")

let finished = DispatchSemaphore(value: 0)
let result = RunResult()
Thread.detachNewThread {
    result.report = try? prepared.run()
    finished.signal()
}

log.waitUntilSaved(3)
runner.suspendAll()
let running = runner.progress().values.reduce(0) { $0 + ($1[.running] ?? 0) }
/// Rows with a thumbnail: saved in this launch, or kept by the store from an earlier one.
func shownRows() -> Set<Int> { Set(log.savedRows + log.cachedRows) }
let waiting = (0..<rowCount).filter { !shownRows().contains($0) }
print(
    "scroll: suspended queues io and cpu: \(waiting.isEmpty ? "no row waits" : "rows \(ranges(waiting)) wait"), "
        + "\(running) running node(s) finish")
let savedBeforeScroll = log.savedRows.count
Thread.sleep(forTimeInterval: 0.2)  // the finger on the screen
let leftScreen = (0..<screen).filter { !shownRows().contains($0) }
for row in leftScreen { try runner.cancel(item: row, cause: "row \(row) scrolled off the screen") }
print(
    "scroll: cancelled \(leftScreen.isEmpty ? "no row" : "rows \(ranges(leftScreen))"): off the screen, "
        + "not saved yet")
try runner.prioritize(items: newScreen)
print("scroll: prioritised rows \(newScreen.lowerBound)–\(newScreen.upperBound - 1): on the screen now")
runner.resumeAll()
print("scroll: resumed queues io and cpu")

finished.wait()
guard let report = result.report else { exit(1) }
let order = log.savedRows
func rows(_ slice: ArraySlice<Int>) -> String { slice.map(String.init).joined(separator: " ") }
let cachedRows = log.cachedRows
print(
    "shown from the store: "
        + (cachedRows.isEmpty ? "none (first launch)" : "rows \(ranges(cachedRows)), made by an earlier launch"))
print("saved before the scroll: \(rows(order[..<savedBeforeScroll]))")
print("saved after the scroll, in order: \(rows(order[savedBeforeScroll...]))")
let cancelledRows = Set(
    report.nodes.filter { $0.status == .cancelled }.compactMap { RunLog.row(of: $0.id) })
print(
    "cancelled: \(cancelledRows.count) rows, \(report.totals[.cancelled] ?? 0) nodes; skipped: \(report.totals[.skipped] ?? 0)"
)
print(
    "index: \(report.status(of: "index")?.rawValue ?? "?") over \(order.count + cachedRows.count) thumbnails in "
        + "\(output.appendingPathComponent("thumbnails").path); exit code \(report.exitCode)")
exit(report.exitCode)
