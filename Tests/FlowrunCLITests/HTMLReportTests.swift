import Foundation
import Testing

/// `--html` and `flowrun report --html` on a real run with a failure: the page's structure, its validity, and
/// what a browser makes of it (headless Chromium, when installed).
@Suite struct HTMLReportTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// Four photos, one missing (with a retry, so the timeline has a retried attempt), through five tasks.
    static let workflow = """
        version: 1
        name: html-check
        queues:
          io: { maxConcurrent: 2 }
          cpu: { maxConcurrent: 2 }
        tasks:
          fetch:
            type: fetch
            forEach: [photos/aitzgorri.jpg, photos/friends.jpg, photos/missing.jpg, photos/wine.jpg]
            url: ${item}
            queue: io
            retries: 1
            retryOn: [any]      # a missing file is not retried by default; the page must draw a retry
          decode: { type: decode, dependsOn: fetch, queue: cpu }
          thumb: { type: resize, width: 400, dependsOn: decode, queue: cpu }
          save: { type: write, path: "out/${item.stem}.jpg", dependsOn: thumb }
          index: { type: noop, gather: true, dependsOn: save }
        """

    /// Runs the workflow with `--html run.html --report run.json`; returns the page.
    private func runWithPage() throws -> String {
        try scratch.write("wf.yaml", Self.workflow)
        for name in ["aitzgorri", "friends", "wine"] {
            try scratch.write("photos/.keep", "")
            try FileManager.default.copyItem(
                atPath: Fixtures.photoPath(name), toPath: scratch.path("photos/\(name).jpg"))
        }
        let result = try Flowrun.run(
            ["wf.yaml", "--html", "run.html", "--report", "run.json", "--no-progress"], in: scratch.url)
        #expect(result.status == 1, "\(result.stderr)")
        return try String(contentsOfFile: scratch.path("run.html"), encoding: .utf8)
    }

    @Test func thePageOfARunShowsItsGraphFailuresGridTimelineAndThumbnails() throws {
        let page = try runWithPage()
        #expect(page.hasPrefix("<!DOCTYPE html>"))
        #expect(Self.count("<g class=\"task\"", in: page) == 5)
        for id in ["fetch", "decode", "thumb", "save", "index"] {
            #expect(page.contains("data-task=\"\(id)\" transform"))
        }
        #expect(page.contains("id=\"grid\"") && page.contains("id=\"timeline\""))
        // The failure, where its task is written, and what it caused to be skipped.
        let failures = try #require(Self.section("failures", of: page))
        #expect(failures.contains("<h3>fetch[photos/missing.jpg]"))
        #expect(failures.contains("no such file"))
        #expect(failures.contains("<code>wf.yaml:7:3</code>"))
        #expect(
            failures.contains(
                "Caused 4 skipped: decode[photos/missing.jpg], thumb[photos/missing.jpg], save[photos/missing.jpg], index"
            ))
        #expect(failures.contains("2 attempts"))
        // The retried attempt is drawn, and marked as such.
        #expect(page.contains("fetch[photos/missing.jpg] attempt 1 (failed, retried)"))
        // One cell per node: 4 items × 4 tasks + the gather.
        let grid = try #require(Self.section("grid", of: page))
        #expect(Self.count("<i class=\"s-", in: grid) == 17)
        #expect(grid.contains("title=\"fetch[photos/missing.jpg] failed: no such file"))
        // Three thumbnails, embedded JPEGs at most 128 px a side, linked to the files; the missing item a gap.
        let sheet = try #require(Self.section("sheet", of: page))
        #expect(Self.count("src=\"data:image/jpeg;base64,", in: sheet) == 3)
        #expect(sheet.contains("href=\"out/aitzgorri.jpg\""))
        #expect(
            sheet.contains(
                "<div class=\"gap\"><b><span class=\"dot s-skipped\"></span> skipped</b><span>fetch[photos/missing.jpg]: no such file"
            ))
        for preview in Self.previews(in: sheet) {
            let size = try #require(Self.jpegSize(preview))
            #expect(max(size.width, size.height) <= 160 && max(size.width, size.height) >= 100, "\(size)")
        }
        #expect(Self.previews(in: sheet).count == 3)
        // No network: nothing is loaded from elsewhere.
        for remote in ["<link", "src=\"http", "href=\"http", "url(http", "@import"] { #expect(!page.contains(remote)) }
        // Written atomically: nothing but the page, the report and the outputs in the folder.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
            $0.hasPrefix(".") && $0 != ".flowrun"  // the store, beside the workflow
        }
        #expect(leftovers.isEmpty)
    }

    @Test func thePageIsValidHTML() throws {
        let page = try runWithPage()
        let problems = try Self.htmlProblems(scratch.path("run.html"), scratch: scratch)
        #expect(problems.isEmpty, "\(problems)")
        #expect(page.contains("</html>"))
    }

    @Test(.enabled(if: Self.chromium != nil, "chromium is not installed (apt-get install chromium); skipping"))
    func chromiumRendersThePageWithoutErrorsAndDecodesEveryThumbnail() throws {
        _ = try runWithPage()
        let (dom, log) = try Self.render("file://\(scratch.path("run.html"))", scratch: scratch)
        let consoleMessages = log.split(separator: "\n").filter { $0.contains("CONSOLE") }
        #expect(consoleMessages.isEmpty, "\(consoleMessages)")
        #expect(dom.contains("data-ready=\"1\""), "the page's script did not run to its end")
        #expect(dom.contains("data-images=\"3/3\""), "not every thumbnail decoded: \(dom.prefix(300))")
        #expect(Self.count("<g class=\"task\"", in: dom) == 5)
        #expect(dom.contains("<section class=\"card grid\" id=\"grid\">") && dom.contains("aria-label=\"timeline\""))
    }

    @Test(.enabled(if: Self.chromium != nil, "chromium is not installed (apt-get install chromium); skipping"))
    func aTaskInTheAddressFiltersThePage() throws {
        _ = try runWithPage()
        let (dom, _) = try Self.render("file://\(scratch.path("run.html"))#task=decode", scratch: scratch)
        #expect(dom.contains("<body class=\"filtered\""))
        #expect(dom.contains("<b id=\"filter-task\">decode</b>"))
        #expect(Self.count("<g class=\"task off\"", in: dom) == 4 && Self.count("<g class=\"task on\"", in: dom) == 1)
        #expect(dom.contains("<g class=\"task on\" data-task=\"decode\""))
        #expect(dom.contains("<article class=\"failure off\" data-task=\"fetch\">"))
        #expect(dom.contains("<div class=\"row on\" data-task=\"decode\">"))
        #expect(dom.contains("<div class=\"row off\" data-task=\"fetch\">"))
    }

    @Test func aSavedReportRendersTheSamePage() throws {
        let page = try runWithPage()
        let result = try Flowrun.run(["report", "run.json", "--html", "again.html"], in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        let again = try String(contentsOfFile: scratch.path("again.html"), encoding: .utf8)
        // The same thumbnails, byte for byte, and the same page but for numbers: the report keeps times to the
        // microsecond, so a duration or a coordinate may round the other way.
        #expect(Self.previews(in: again) == Self.previews(in: page) && Self.previews(in: page).count == 3)
        #expect(Self.withoutNumbers(again) == Self.withoutNumbers(page))
    }

    /// The page with every run of digits (and decimal point) replaced by `#`.
    static func withoutNumbers(_ page: String) -> String {
        page.replacingOccurrences(of: "[0-9]+(\\.[0-9]+)?", with: "#", options: .regularExpression)
    }

    @Test func aReportThatIsMissingOrNotAReportIsAnErrorWithExitTwo() throws {
        let missing = try Flowrun.run(["report", "nowhere.json", "--html", "x.html"], in: scratch.url)
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("error: cannot read 'nowhere.json': No such file or directory"))
        try scratch.write("other.json", #"{"workflow": "w", "nodes": 3}"#)
        let other = try Flowrun.run(["report", "other.json", "--html", "x.html"], in: scratch.url)
        #expect(other.status == 2)
        #expect(
            other.stderr.hasPrefix("error: 'other.json' is not a flowrun run report: missing 'path'"), "\(other.stderr)"
        )
        try scratch.write("broken.json", "{ not json")
        let broken = try Flowrun.run(["report", "broken.json", "--html", "x.html"], in: scratch.url)
        #expect(broken.status == 2)
        #expect(broken.stderr.contains("is not a flowrun run report"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.html")))
    }

    @Test func anUnwritablePageIsAnErrorAndLeavesNothingBehind() throws {
        try scratch.write("wf.yaml", "version: 1\ntasks:\n  a: { type: noop }\n")
        try FileManager.default.createDirectory(atPath: scratch.path("ro"), withIntermediateDirectories: true)
        let result = try Flowrun.run(
            ["wf.yaml", "--html", "missing-folder/run.html", "--no-progress"], in: scratch.url)
        #expect(result.status == 1)
        #expect(result.stderr.contains("error: cannot write 'missing-folder/run.html': No such file or directory"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("missing-folder")))
    }

    // MARK: Helpers

    /// The page's DOM after its scripts ran, and Chromium's log (console messages included), from a headless run.
    static func render(_ url: String, scratch: Scratch) throws -> (dom: String, log: String) {
        let chromium = try #require(Self.chromium)
        return try capture(
            chromium,
            [
                "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr", "--v=0",
                "--user-data-dir=\(scratch.path("chromium-profile-\(UUID().uuidString)"))",
                "--virtual-time-budget=5000",
                "--dump-dom", url,
            ], scratch: scratch)
    }

    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The `<section … id="ID">` of the page, up to its end.
    static func section(_ id: String, of page: String) -> String? {
        guard let start = page.range(of: "id=\"\(id)\"") else { return nil }
        guard let end = page.range(of: "</section>", range: start.upperBound..<page.endIndex) else { return nil }
        return String(page[start.lowerBound..<end.upperBound])
    }

    /// The embedded preview JPEGs.
    static func previews(in html: String) -> [Data] {
        html.components(separatedBy: "data:image/jpeg;base64,").dropFirst().compactMap { rest in
            rest.split(separator: "\"", maxSplits: 1).first.flatMap { Data(base64Encoded: String($0)) }
        }
    }

    /// A JPEG's size from its SOF marker.
    static func jpegSize(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        guard bytes.starts(with: [0xFF, 0xD8]) else { return nil }
        var offset = 2
        while offset + 9 < bytes.count {
            guard bytes[offset] == 0xFF else { return nil }
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if (0xC0...0xC3).contains(marker) {
                return (
                    Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8]),
                    Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                )
            }
            offset += 2 + length
        }
        return nil
    }

    /// Runs a program; its stdout and stderr, through files (a page's DOM can fill a pipe).
    static func capture(_ program: String, _ arguments: [String], scratch: Scratch) throws -> (String, String) {
        let name = UUID().uuidString
        _ = FileManager.default.createFile(atPath: scratch.path("\(name).out"), contents: nil)
        _ = FileManager.default.createFile(atPath: scratch.path("\(name).err"), contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("\(name).out")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: scratch.path("\(name).err")))
        try process.run()
        let deadline = Date(timeIntervalSinceNow: 120)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (
            try String(contentsOfFile: scratch.path("\(name).out"), encoding: .utf8),
            try String(contentsOfFile: scratch.path("\(name).err"), encoding: .utf8)
        )
    }

    /// What a strict reading of the page finds wrong: tags not closed or closed out of order, end tags of
    /// elements never opened or of void elements, duplicate ids, images without `alt`, a missing doctype or
    /// `lang`. Python's `html.parser` tokenises; the checks are ours.
    static func htmlProblems(_ path: String, scratch: Scratch) throws -> [String] {
        let checker = """
            import sys
            from html.parser import HTMLParser
            VOID = {"area","base","br","col","embed","hr","img","input","link","meta","source","track","wbr"}
            class Check(HTMLParser):
                def __init__(self):
                    super().__init__(convert_charrefs=True)
                    self.stack, self.ids, self.problems, self.doctype = [], set(), [], False
                def handle_decl(self, decl):
                    self.doctype = self.doctype or decl.lower() == "doctype html"
                def where(self):
                    return "line %d col %d" % self.getpos()
                def attributes(self, tag, attrs):
                    names = [name for name, _ in attrs]
                    if len(names) != len(set(names)):
                        self.problems.append("%s: duplicate attribute on <%s>" % (self.where(), tag))
                    for name, value in attrs:
                        if name == "id":
                            if value in self.ids:
                                self.problems.append("%s: duplicate id %r" % (self.where(), value))
                            self.ids.add(value)
                    if tag == "img" and "alt" not in names:
                        self.problems.append("%s: <img> without alt" % self.where())
                    if tag == "html" and "lang" not in names:
                        self.problems.append("<html> without lang")
                def handle_starttag(self, tag, attrs):
                    self.attributes(tag, attrs)
                    if tag not in VOID:
                        self.stack.append(tag)
                def handle_startendtag(self, tag, attrs):
                    self.attributes(tag, attrs)
                def handle_endtag(self, tag):
                    if tag in VOID:
                        self.problems.append("%s: end tag of void <%s>" % (self.where(), tag))
                    elif not self.stack or self.stack[-1] != tag:
                        self.problems.append("%s: </%s> closes <%s>" % (self.where(), tag, self.stack[-1] if self.stack else "nothing"))
                        if tag in self.stack:
                            while self.stack.pop() != tag:
                                pass
                    else:
                        self.stack.pop()
            check = Check()
            check.feed(open(sys.argv[1], encoding="utf-8").read())
            check.close()
            if not check.doctype:
                check.problems.append("no <!DOCTYPE html>")
            if check.stack:
                check.problems.append("never closed: %s" % " ".join(check.stack))
            print("\\n".join(check.problems))
            """
        let (out, error) = try capture("/usr/bin/python3", ["-c", checker, path], scratch: scratch)
        #expect(error.isEmpty, "\(error)")
        return out.split(separator: "\n").map(String.init)
    }
}
