// swift-tools-version:6.0
import PackageDescription

/// Upcoming features enabled on every target (as swift-log does). Not `MemberImportVisibility`: Swift 6.3 on Linux
/// attributes `timespec`'s members to SwiftOverlayShims in some compile batches and then rejects `tv_sec` in files
/// that import Foundation, so a clean build failed or passed depending on how files were batched.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

let package = Package(
    name: "flowrun",
    products: [
        .library(name: "FlowKit", targets: ["FlowKit"]),
        .library(name: "FlowImaging", targets: ["FlowImaging"]),
        .library(name: "FlowrunCLI", targets: ["FlowrunCLI"]),
        .library(name: "FlowKitTesting", targets: ["FlowKitTesting"]),
        .executable(name: "flowrun", targets: ["flowrun"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.0"..<"5.0.0"),
        // `swift package generate-documentation`, which `.ci/run` runs on FlowKit's and FlowImaging's catalogues.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // System libraries, found with pkg-config; `.ci/run` installs the Debian packages.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: "libturbojpeg", providers: [.apt(["libturbojpeg0-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng16", providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebp", providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: [.apt(["liblcms2-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),
        .systemLibrary(name: "CHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // libraw_r, not libraw: the plain build keeps some decoders' state in statics shared by every handle, and
        // flowrun decodes several files at once (one handle each). Without pkg-config: libraw_r.pc's `-fopenmp` is a
        // flag SwiftPM prohibits (a warning on every build), and the header is found as <libraw/libraw.h>.
        .systemLibrary(name: "CLibRaw", providers: [.apt(["libraw-dev"])]),

        // CRC-32C with the processor's instruction, for the store's journal.
        .target(name: "CFlowChecksum"),
        // The layer under everything, which knows nothing of workflows: JSON, graph walks, the journal's byte codec
        // and checksum, the markup escaper, a lock box, lines of bytes. The DocC article "Architecture" draws the
        // layers.
        .target(
            name: "FlowBasics",
            dependencies: [
                "CFlowChecksum",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        // The S3 client FlowKit's buckets and `s3://` paths use: requests, Signature V4, the AWS configuration and
        // credentials, `s3://` locations. It knows nothing of a run or the store.
        .target(
            name: "FlowS3",
            dependencies: [
                "FlowBasics",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowKit",
            dependencies: [
                "FlowBasics",
                "FlowS3",
                "CYAML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        // The resampling passes for AVX2+FMA, chosen at run time (Swift cannot target one function at them).
        .target(name: "CFlowKernels"),
        // C for what Swift cannot do: libpng's and libjpeg's row APIs, whose errors longjmp; libtiff's error handlers,
        // which take a va_list.
        .target(name: "CFlowShims", dependencies: ["CPNG", "CLibJPEG", "CTIFF"]),
        .target(
            name: "FlowImaging",
            dependencies: [
                "FlowBasics", "FlowS3", "FlowKit", "CTurboJPEG", "CPNG", "CWebP", "CLCMS2", "CTIFF", "CHEIF",
                "CLibRaw", "CFlowKernels", "CFlowShims",
            ],
            swiftSettings: strictSettings + [.unsafeFlags(["-Ounchecked"], .when(configuration: .release))]
        ),
        // The image benchmark's job, for `bench/image/run.sh` and the release-mode benchmark test.
        .target(name: "FlowImagingBench", dependencies: ["FlowImaging", "FlowKit"], swiftSettings: strictSettings),
        .target(
            name: "FlowrunCLI",
            dependencies: [
                "FlowBasics",
                "FlowS3",
                "FlowKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "flowrun",
            dependencies: ["FlowrunCLI", "FlowImaging", "FlowKit"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "flowrun-bench",
            dependencies: ["FlowKit"],
            path: "Sources/flowrun-bench",
            swiftSettings: strictSettings
        ),
        .target(
            name: "FlowKitTesting",
            dependencies: ["FlowBasics", "FlowKit"],
            exclude: ["README.md"],
            swiftSettings: strictSettings
        ),
        // What the test targets share, not product API: a temporary folder, and a scripted HTTP/1.1 server on
        // 127.0.0.1 for the fetch and fault tests.
        .target(
            name: "TestSupport", dependencies: ["FlowKit"], path: "Tests/TestSupport",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowKitTests",
            // FlowImaging for its task types only: the goldens run against the registry `flowrun` uses.
            dependencies: [
                "FlowBasics", "FlowS3", "FlowKit", "FlowKitTesting", "FlowImaging", "TestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowImagingTests",
            // lcms2 makes the colour profiles of the test photos; libtiff and libheif make the TIFF, HEIC and AVIF ones.
            dependencies: [
                "FlowBasics", "FlowImaging", "FlowImagingBench", "FlowKit", "FlowKitTesting", "TestSupport", "CLCMS2",
                "CTIFF", "CHEIF",
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "FlowrunCLITests",
            // The tests run the built `flowrun`; depending on it makes `swift test` build it first.
            dependencies: [
                "FlowBasics", "FlowS3", "FlowrunCLI", "FlowKit", "FlowKitTesting", "TestSupport", "flowrun",
            ],
            exclude: ["Goldens", "ArgoSchema", "JUnitSchema"],
            swiftSettings: strictSettings
        ),
    ]
)
