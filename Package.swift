// swift-tools-version: 6.0
import PackageDescription

// The library is layered as modules, so the compiler holds the arrows (Docs: Sources/Gazetteer/
// Gazetteer.docc/Architecture.md). Each arrow points down; nothing points back up, and import and
// queries never see each other:
//
//   Gazetteer (the public face: re-exports, DefaultDatabase)
//      ├── GazetteerQuery   (Repository: reverse, nearby, search, geocode, district, check)
//      └── GazetteerImport  (CSV → database)
//            both on GazetteerCore (model, geometry, schema and rows, shared indexes)
//                  on GazetteerSQLite (the only user of CSQLite) and GazetteerSupport (locks)
//   CPrefetch (one C function, a prefetch) under the command alone
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
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `gazetteer serve` only (the GazetteerServer target): HTTP, logging, signals.
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "GazetteerSupport"),
        // One C function Swift cannot spell: a prefetch, for the batch's scattered writes.
        .target(name: "CPrefetch"),
        .target(name: "GazetteerSQLite", dependencies: ["CSQLite", "GazetteerSupport"]),
        .target(
            name: "GazetteerCore",
            dependencies: ["GazetteerSQLite", "GazetteerSupport"],
            // schema.sql lives at the top level; the link lets it be compiled into the
            // library so an installed binary never looks for the source tree.
            exclude: ["Codes/README.md", "Codes/LICENSE.OpenCC"],
            resources: [.embedInCode("schema.sql"), .embedInCode("Codes/former_names.tsv"), .embedInCode("Codes/changed_regions.tsv"), .embedInCode("Codes/functional_zones.tsv"), .embedInCode("Codes/traditional.tsv")]
        ),
        .target(name: "GazetteerImport", dependencies: ["GazetteerCore", "GazetteerSQLite"]),
        .target(name: "GazetteerQuery", dependencies: ["GazetteerCore", "GazetteerSQLite", "GazetteerSupport"]),
        .target(name: "Gazetteer", dependencies: ["GazetteerCore", "GazetteerImport", "GazetteerQuery"]),
        // AMap's web API (v3) over the library: paths, parameters, response shapes.
        .target(name: "GazetteerAMap", dependencies: ["Gazetteer"]),
        // `gazetteer serve`: GazetteerAMap over HTTP (Hummingbird). Its own target so the library
        // never depends on a web server.
        .target(
            name: "GazetteerServer",
            dependencies: [
                "Gazetteer",
                "GazetteerAMap",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The location picker's page, compiled in so an installed binary serves it with no
            // source tree and no network. Leaflet 1.9.4 is vendored with its licence (see
            // Picker/README.md).
            exclude: ["Picker/README.md"],
            resources: [
                .embedInCode("Picker/index.html"), .embedInCode("Picker/picker.js"), .embedInCode("Picker/picker.css"),
                .embedInCode("Picker/leaflet.js"), .embedInCode("Picker/leaflet.css"), .embedInCode("Picker/leaflet-LICENSE.txt"),
            ]
        ),
        .executableTarget(
            name: "GazetteerCLI",
            dependencies: [
                "CPrefetch",
                "Gazetteer",
                "GazetteerAMap",
                "GazetteerServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Benchmarks: `swift run -c release gazetteer-bench --help`. Not part of the tests.
        .executableTarget(
            name: "GazetteerBench",
            dependencies: [
                "Gazetteer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "GazetteerTests",
            dependencies: [
                "Gazetteer", "GazetteerAMap", "GazetteerCore", "GazetteerSQLite", "GazetteerImport", "GazetteerQuery",
                "GazetteerSupport",
            ],
            // Fixture data read through #filePath, not bundled resources.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "GazetteerServerTests",
            dependencies: [
                "Gazetteer", "GazetteerAMap", "GazetteerServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
