// libFuzzer target: workflow bytes → load (libyaml), decode, validate, plan; every diagnostic rendered.
import CFuzzer
import FlowImaging
import FlowKit

private let loader = WorkflowLoader(registry: .standard, environment: ["HOME": "/home/fuzz", "USER": "fuzz"])

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoader(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    // A path in a folder that does not exist: `{ file: … }` and `{ glob: … }` lists find nothing on disk.
    let result = loader.plan(bytes: bytes, path: "/nonexistent-fuzz/workflow.yaml")
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
