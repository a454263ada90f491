// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "gazetteer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Gazetteer", targets: ["Gazetteer"]),
        .executable(name: "gazetteer", targets: ["GazetteerCLI"]),
        .executable(name: "gazetteer-bench", targets: ["GazetteerBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(
            name: "Gazetteer",
            dependencies: ["CSQLite"],
            // schema.sql lives at the top level; the link lets it be compiled into the
            // library so an installed binary never looks for the source tree.
            resources: [.embedInCode("schema.sql")]
        ),
        .executableTarget(
            name: "GazetteerCLI",
            dependencies: [
                "Gazetteer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks: `swift run -c release gazetteer-bench --help`. Not part of the tests.
        .executableTarget(
            name: "GazetteerBench",
            dependencies: ["Gazetteer"]
        ),
        .testTarget(
            name: "GazetteerTests",
            dependencies: ["Gazetteer"],
            // Fixture data read through #filePath, not bundled resources.
            exclude: ["Fixtures"]
        ),
    ]
)
