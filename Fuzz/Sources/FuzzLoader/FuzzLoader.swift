// libFuzzer target: workflow bytes → load (libyaml), decode, validate, plan; every diagnostic rendered.
import CFuzzer
import FlowImaging
import FlowKit
import Foundation

private let loader = WorkflowLoader(registry: .standard, environment: ["HOME": "/home/fuzz", "USER": "fuzz"])

/// A folder the fuzzed workflow sits in, with files it can name: pipelines for `uses:` (one with parameters, and a
/// chain of five that each import the next ten times, 10⁵ tasks, past the import limit), a `forEach` list file, an
/// env file and photos for a glob. Without them every `uses:` would stop at "no such file" and the import
/// expansion, its limit and its parameter passing would never be reached.
private let workflowPath: String = {
    let folder = "/tmp/flowrun-fuzz-loader-\(getpid())"
    let files: [String: String] = [
        "lib/tone.yaml": """
        version: 1
        params:
          strength: 0.8
          label: x
        tasks:
          decode: { type: decode }
          tone: { type: sepia, intensity: "${params.strength}", dependsOn: decode }

        """,
        "lib/chain5.yaml": "version: 1\ntasks:\n  leaf: { type: noop, timeout: 5s }\n",
        "items.txt": "a.jpg\nsub/b.jpg\n\nc d.png\n",
        "run.env": "SIZE=320\nQUALITY=80\n",
        "photos/2024/x.jpg": "", "photos/2024/Y.JPG": "", "photos/.hidden/z.jpg": "", "photos/w.webp": "",
    ].merging(
        (0..<5).map { level in
            (
                "lib/chain\(level).yaml",
                "version: 1\ntasks:\n" + (0..<10).map { "  p\($0): { uses: chain\(level + 1).yaml }\n" }.joined()
            )
        },
        uniquingKeysWith: { first, _ in first })
    for (name, text) in files {
        let path = folder + "/" + name
        let parent = path[..<(path.lastIndex(of: "/") ?? path.endIndex)]
        try? FileManager.default.createDirectory(atPath: String(parent), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
    return folder + "/workflow.yaml"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let result = loader.plan(bytes: bytes, path: workflowPath)
    let text = DiagnosticRenderer(sources: result.sources).render(result.diagnostics)
    if let plan = result.plan { _ = String(describing: plan).count }
    _ = text.utf8.count
    return 0
}

// SwiftPM links an executable with `--defsym main=FuzzLoader_main` (its entry point renamed for testability),
// which hides libFuzzer's own `main`; this one hands over to libFuzzer's driver instead.
@_cdecl("FuzzLoader_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in fuzzLoader(data, size) }
}
