import FlowImaging
import FlowKit
import Foundation
import Testing

/// The task descriptors: registry, kinds, parameter checks.
@Suite struct TaskTypeTests {
    static let here = FlowKit.SourceLocation(path: "w.yaml", line: 3, column: 5)

    static func diagnostics(_ type: any TaskType, _ values: [String: Value]) -> [String] {
        var locations: [String: FlowKit.SourceLocation] = [:]
        for key in values.keys { locations[key] = here }
        return type.validate(parameters: ParameterValues(values, locations: locations), task: "t").map(\.message)
    }

    @Test func standardRegistryHasTheImageTasks() {
        let registry = TaskRegistry.standard
        for name in [
            "noop", "sleep", "fetch", "decode", "sepia", "noir", "resize", "write", "crop", "rotate", "flip", "blur",
            "sharpen", "overlay",
        ] {
            #expect(registry[name] != nil, "\(name)")
        }
        #expect(registry["decode"]?.consumes == .oneOf([.data]) && registry["decode"]?.provides == .image)
        #expect(registry["write"]?.consumes == .oneOf([.image, .data]) && registry["write"]?.provides == .file)
        #expect(registry.adapters(from: .data, to: [.image]).map(\.name) == ["decode"])
    }

    @Test(
        arguments: [
            ([:], "task 't' (resize) needs one of 'scale', 'width', 'height'"),
            (
                ["scale": .double(0.5), "width": .int(3)],
                "task 't' (resize) sets 'scale' and 'width', which exclude each other"
            ),
            (["width": .int(3), "fit": .string("cover")], "'fit' of task 't' needs 'height' as well"),
        ] as [([String: Value], String)])
    func resizeParameterRules(values: [String: Value], message: String) {
        #expect(Self.diagnostics(ResizeTask(), values) == [message])
    }

    @Test(
        arguments: [
            ["scale": .double(0.3)], ["width": .int(10)], ["width": .int(10), "height": .int(5)],
            ["height": .int(4), "filter": .string("nearest")],
        ] as [[String: Value]])
    func validResizeParameters(values: [String: Value]) {
        #expect(Self.diagnostics(ResizeTask(), values).isEmpty)
    }

    @Test func writeFormatFromExtension() {
        #expect(
            Self.diagnostics(WriteTask(), ["path": .string("out/a.gif")])
                == ["write needs a format: unknown extension '.gif'"])
        #expect(Self.diagnostics(WriteTask(), ["path": .string("out/a")]).first?.contains("no extension") == true)
        #expect(Self.diagnostics(WriteTask(), ["path": .string("out/a.gif"), "format": .string("png")]).isEmpty)
        #expect(Self.diagnostics(WriteTask(), ["path": .string("out/${item.stem}.jpg")]).isEmpty)
    }

    @Test func diagnosticsPointAtTheParameter() {
        let diagnostics = WriteTask().validate(
            parameters: ParameterValues(["path": .string("a.tiff")], locations: ["path": Self.here]), task: "t")
        #expect(diagnostics.first?.location == Self.here)
    }

    @Test func parameterSpecsHaveRangesAndDefaults() {
        #expect(SepiaTask().parameter(named: "intensity")?.range == 0...1)
        #expect(SepiaTask().parameter(named: "intensity")?.defaultValue == .double(1))
        #expect(WriteTask().parameter(named: "quality")?.range == 1...100)
        #expect(WriteTask().parameter(named: "path")?.isRequired == true)
        #expect(ResizeTask().parameter(named: "filter")?.defaultValue == .string("lanczos"))
    }

    @Test func writeChecksItsBackgroundAndWhatItKeeps() {
        #expect(
            Self.diagnostics(WriteTask(), ["path": .string("a.jpg"), "background": .string("pink")])
                == ["write's background 'pink' is not a colour"])
        #expect(
            Self.diagnostics(
                WriteTask(), ["path": .string("a.jpg"), "keep": .list([.string("exif"), .string("gps")])])
                == ["write cannot keep 'gps'"])
        let valid: [String: Value] = [
            "path": .string("a.jpg"), "background": .string("#fa0"), "progressive": .bool(true),
            "keep": .list([.string("exif"), .string("icc"), .string("xmp")]), "strip": .list([.string("gps")]),
        ]
        #expect(Self.diagnostics(WriteTask(), valid).isEmpty)
        #expect(Self.diagnostics(WriteTask(), ["path": .string("a.webp"), "lossless": .bool(true)]).isEmpty)
    }

    /// `flowrun tasks` and `flowrun schema` list a task's ParameterSpecs: the new ones must be there.
    @Test func writeDeclaresItsNewParameters() {
        let names = Set(WriteTask().parameters.map(\.name))
        #expect(names.isSuperset(of: ["format", "quality", "progressive", "lossless", "background", "keep", "strip"]))
        #expect(WriteTask().parameter(named: "format")?.type == .oneOf(["jpeg", "png", "webp", "avif"]))
        #expect(WriteTask().parameter(named: "background")?.defaultValue == .string("#ffffff"))
    }
}
