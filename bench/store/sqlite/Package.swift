// swift-tools-version:6.0
// What the store's work costs in SQLite through GRDB.swift, for the choice in docs/store-format.md ("Why a
// journal"): a package of its own, so the main package does not depend on GRDB (`bench/store/sqlite.sh` runs it).
import PackageDescription

let package = Package(
    name: "StoreSQLiteBench",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0")
    ],
    targets: [
        .executableTarget(
            name: "StoreSQLiteBench",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]
        )
    ]
)
