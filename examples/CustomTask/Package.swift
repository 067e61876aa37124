// swift-tools-version:6.0
// A package that adds its own task types to flowrun and ships its own `flowrun`-compatible executable.
import PackageDescription

let package = Package(
    name: "CustomTask",
    products: [
        .library(name: "StudioTasks", targets: ["StudioTasks"]),
        .executable(name: "studio-flowrun", targets: ["studio-flowrun"]),
    ],
    dependencies: [
        // flowrun itself, two folders up. `name:` keeps the product references below independent of
        // the folder the repository was cloned into.
        .package(name: "flowrun", path: "../..")
    ],
    targets: [
        .target(
            name: "StudioTasks",
            dependencies: [
                .product(name: "FlowKit", package: "flowrun"),
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        ),
        .executableTarget(
            name: "studio-flowrun",
            dependencies: [
                "StudioTasks",
                .product(name: "FlowImaging", package: "flowrun"),
                .product(name: "FlowrunCLI", package: "flowrun"),
            ]
        ),
        .testTarget(
            name: "StudioTasksTests",
            dependencies: [
                "StudioTasks",
                .product(name: "FlowKit", package: "flowrun"),
                .product(name: "FlowImaging", package: "flowrun"),
                .product(name: "FlowKitTesting", package: "flowrun"),
            ]
        ),
    ]
)
