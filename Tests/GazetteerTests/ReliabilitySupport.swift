import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

// Reliability: `check` finds damage and names it; read-only files and file systems answer every
// query; damaged or foreign files give a clear error naming the file, in the library and the CLI.
// Helpers of the three reliability suites: ReliabilityCheckTests, ReliabilityReadOnlyTests,
// ReliabilityDamagedFileTests.

/// A fixture database with regions, boundaries and POIs, its WAL folded in.
func cleanFixture() throws -> Fixture {
    let fixture = Fixture()
    try fixture.run([
        fixture.write("regions.csv", Fixture.regions),
        fixture.write("boundaries.csv", Fixture.boundaries),
        fixture.write("pois.csv", Fixture.pois),
    ])
    try Connection(path: fixture.database, mode: .readWrite).execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return fixture
}

/// The error `body` throws, as GazetteerError (nil, with an issue recorded, otherwise).
func gazetteerError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> GazetteerError? {
    do {
        try body()
        Issue.record("expected a GazetteerError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as GazetteerError {
        return error
    } catch {
        Issue.record("expected a GazetteerError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Mounting a tmpfs and remounting it read-only: the real thing, not a permission bit root
/// ignores. Needs root and `mount`; tests that use it are disabled, with this reason, otherwise.
enum ReadOnlyMount {
    static let unavailableReason = "needs root and `mount -t tmpfs` (to make a real read-only file system)"

    @discardableResult
    static func sh(_ arguments: [String]) -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return -1 }
        p.waitUntilExit()
        return p.terminationStatus
    }

    /// Whether a tmpfs can be mounted, remounted read-only and unmounted here.
    static let isAvailable: Bool = {
        guard getuid() == 0 else { return false }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-mount-probe-\(UUID().uuidString)").path
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard sh(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]) == 0 else { return false }
        let remounted = sh(["mount", "-o", "remount,ro", dir]) == 0
        sh(["umount", "-l", dir])
        return remounted
    }()

    /// A folder on a fresh tmpfs holding copies of `files`, remounted read-only.
    final class Folder {
        let path: String
        init(copying files: [String: String]) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-ro-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            guard sh(["mount", "-t", "tmpfs", "-o", "size=64m", "tmpfs", path]) == 0 else {
                throw CLIError("mount -t tmpfs failed")
            }
            for (name, source) in files { try FileManager.default.copyItem(atPath: source, toPath: path + "/" + name) }
            guard sh(["mount", "-o", "remount,ro", path]) == 0 else { throw CLIError("mount -o remount,ro failed") }
        }
        func file(_ name: String) -> String { path + "/" + name }
        deinit {
            // Lazy, so a connection still open elsewhere cannot keep the mount alive.
            ReadOnlyMount.sh(["umount", "-l", path])
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    struct CLIError: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }
}

/// How to run the CLI as a user whom file permissions apply to: directly when the tests are not
/// root; as root, through `setpriv` as `nobody`, if it can reach the binary and the temporary folder.
enum UnprivilegedRun {
    static let wrapper: [String] = getuid() == 0
        ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []

    static let unavailableReason: String = {
        guard getuid() == 0 else { return "" }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return "running as root without setpriv" }
        guard let binary = CLI.binary else { return "no gazetteer binary" }
        // nobody must be able to run the binary and enter the temporary folder.
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        probe.arguments = Array(wrapper.dropFirst()) + ["/bin/sh", "-c", "test -x \"$0\" && test -x \"$1\"", binary,
                                                        FileManager.default.temporaryDirectory.path]
        guard (try? probe.run()) != nil else { return "setpriv cannot start" }
        probe.waitUntilExit()
        return probe.terminationStatus == 0 ? "" : "nobody cannot run \(binary) (a parent folder is private)"
    }()

    static var isAvailable: Bool { unavailableReason.isEmpty }
}
