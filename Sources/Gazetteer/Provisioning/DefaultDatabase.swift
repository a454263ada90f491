import Foundation
import GazetteerCore
import GazetteerImport
import GazetteerQuery

/// Where the CLI keeps its database when none is named: built once from the bundled seed so
/// a first command answers with no setup step.
public enum DefaultDatabase {
    /// `$XDG_DATA_HOME/gazetteer/gazetteer.sqlite`, else `~/.local/share/gazetteer/gazetteer.sqlite`.
    public static var path: String {
        let env = ProcessInfo.processInfo.environment
        let base: String
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty {
            base = xdg
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
        }
        return URL(fileURLWithPath: base).appendingPathComponent("gazetteer/gazetteer.sqlite").path
    }

    /// The bundled seed folder: `$GAZETTEER_SEED`, else `share/gazetteer/seed` beside an
    /// installed binary, else the source tree this was built from. Nil when none is found.
    public static var seedDirectory: String? {
        var candidates: [URL] = []
        if let env = ProcessInfo.processInfo.environment["GAZETTEER_SEED"], !env.isEmpty {
            candidates.append(URL(fileURLWithPath: env))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let bin = executable.deletingLastPathComponent()
        candidates.append(bin.appendingPathComponent("../share/gazetteer/seed").standardized)
        candidates.append(bin.appendingPathComponent("seed"))
        // Sources/Gazetteer/Repository/DefaultDatabase.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(root.appendingPathComponent("seed"))
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("regions.csv").path) }?.path
    }

    /// The seed's version (`seed/VERSION`), recorded as the dataset version.
    static func seedVersion(_ directory: String) -> String {
        let text = (try? String(contentsOfFile: (directory as NSString).appendingPathComponent("VERSION"), encoding: .utf8)) ?? ""
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return "seed-" + (trimmed.isEmpty ? "unversioned" : trimmed)
    }

    /// Why the default database must be (re)built, or nil when it is ready.
    public static func staleness(path: String = path, seed: String?) -> String? {
        guard FileManager.default.fileExists(atPath: path) else { return "it does not exist yet" }
        do {
            let (hasRegions, datasetVersion) = try Repository(path: path).readiness()
            if !hasRegions { return "it is empty" }
            if let seed, datasetVersion.hasPrefix("seed-"), datasetVersion != seedVersion(seed) {
                return "the bundled seed changed (\(datasetVersion) → \(seedVersion(seed)))"
            }
            return nil
        } catch GazetteerError.schemaVersionMismatch(_, let found, let expected) {
            return "it has schema version \(found), this gazetteer uses \(expected)"
        } catch {
            return "it cannot be read (\(error))"
        }
    }

    /// Builds the database at `path` from the seed into a temporary file and moves it into
    /// place, so an interrupted build never leaves a half-filled default database.
    public static func build(
        path: String = path, seed: String, progress: ((ImportProgress) -> Void)? = nil
    ) throws -> ImportSummary {
        let fm = FileManager.default
        try fm.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let temporary = path + ".building-\(ProcessInfo.processInfo.processIdentifier)"
        func remove(_ p: String) { for s in ["", "-wal", "-shm", "-journal"] { try? fm.removeItem(atPath: p + s) } }
        remove(temporary)
        defer { remove(temporary) }
        var options = ImportOptions()
        options.datasetVersion = seedVersion(seed)
        options.datasetSources = "gazetteer seed (see seed/SOURCES.md)"
        let summary: ImportSummary
        do {
            let importer = try Importer(path: temporary)
            summary = try importer.importFiles([seed], options: options, progress: progress)
            try importer.checkpoint()
        }
        remove(path)
        try fm.moveItem(atPath: temporary, toPath: path)
        return summary
    }
}
