// swift-tools-version:6.0
// libFuzzer targets for flowrun. A separate package so the main package's build is untouched; built by
// run.sh with `-sanitize=fuzzer,address` (see README.md).
import PackageDescription

let package = Package(
    name: "flowrun-fuzz",
    dependencies: [
        .package(name: "flowrun", path: ".."),
    ],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver (see FuzzMain in each target).
        .target(name: "CFuzzer"),
        .executableTarget(
            name: "FuzzLoader",
            dependencies: [
                "CFuzzer",
                .product(name: "FlowKit", package: "flowrun"),
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        ),
        .executableTarget(
            name: "FuzzDecoders",
            dependencies: [
                "CFuzzer",
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        ),
        .executableTarget(
            name: "FuzzHEIF",
            dependencies: [
                "CFuzzer",
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        ),
        .executableTarget(
            name: "FuzzTIFF",
            dependencies: [
                "CFuzzer",
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        ),
        .executableTarget(
            name: "FuzzResize",
            dependencies: [
                "CFuzzer",
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        ),
    ]
)
