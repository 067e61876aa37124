// swift-tools-version:6.0
// An app that embeds FlowKit as the photo-list app of Operation tutorials uses its queues: it runs a gallery
// workflow and, while the user scrolls, suspends the queues, cancels the rows that left the screen and starts
// the rows that came into view first.
import PackageDescription

let package = Package(
    name: "PhotoList",
    dependencies: [
        // flowrun itself, two folders up. `name:` keeps the product references below independent of
        // the folder the repository was cloned into.
        .package(name: "flowrun", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "photo-list",
            dependencies: [
                .product(name: "FlowKit", package: "flowrun"),
                .product(name: "FlowImaging", package: "flowrun"),
            ]
        )
    ]
)
