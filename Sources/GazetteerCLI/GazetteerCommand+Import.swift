import ArgumentParser
import Foundation
import Gazetteer

extension GazetteerCommand {
    /// `gazetteer import`: load region, boundary and POI CSV files.
    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import region, boundary and POI CSV files (formats: docs/csv-formats.md).",
            discussion: """
                Files and folders (their *.csv files) in any order: regions are loaded first, then boundaries, \
                then POIs. The import is all or nothing: on any error nothing changes and the errors are listed \
                with file, line and column. Rows are keyed by code or id, so importing the same file twice \
                changes nothing.
                """)

        @OptionGroup var database: DatabaseOptions

        @Flag(help: "Replace the whole dataset instead of merging into it.")
        var replace = false

        @Flag(help: "Import the valid rows and write the invalid ones, with reasons, to the rejects file.")
        var skipInvalid = false

        @Option(help: ArgumentHelp("Where --skip-invalid writes rejected rows.", valueName: "path"))
        var rejects = "gazetteer-rejects.csv"

        @Option(help: ArgumentHelp("Text encoding of the files: utf8 or gbk (GBK/GB18030).", valueName: "name"))
        var encoding: TextEncoding = .utf8

        @Option(help: ArgumentHelp("Coordinate system of the files: gcj02, wgs84 or bd09. Stored as GCJ-02.", valueName: "system"))
        var coordsys: CoordinateSystem = .gcj02

        @Option(help: ArgumentHelp("A dataset version to record in the database.", valueName: "text"))
        var datasetVersion: String?

        @Argument(help: ArgumentHelp("CSV files or folders of CSV files.", valueName: "path"))
        var paths: [String]

        func validate() throws {
            if paths.isEmpty { throw ValidationError("name at least one CSV file or folder.") }
        }

        func run() throws {
            var options = ImportOptions()
            options.replace = replace
            options.skipInvalid = skipInvalid
            options.rejectsPath = rejects
            options.encoding = encoding
            options.coordinateSystem = coordsys
            options.datasetVersion = datasetVersion
            let path = database.explicitPath ?? DefaultDatabase.path
            let importer = try Importer(path: path)
            // Say at once, not after a long import, that the rejects file cannot be written.
            if skipInvalid, let why = Self.whyUnwritable(rejects) { throw Self.rejectsError(rejects, why) }
            let bar = ProgressBar(label: "importing")
            let summary: ImportSummary
            do {
                summary = try importer.importFiles(paths, options: options, progress: bar.update)
            } catch let error as ImportError where error.file == rejects && error.line == nil {
                throw Self.rejectsError(rejects, Self.whyUnwritable(rejects) ?? error.reason)
            }
            print(Self.describe(summary, into: path))
        }

        static func rejectsError(_ path: String, _ why: String) -> CLIError {
            CLIError("cannot create the rejects file at \(path): \(why); name another path with --rejects.")
        }

        /// Why a file cannot be created or overwritten at `path`, or nil when it can.
        static func whyUnwritable(_ path: String) -> String? {
            let fm = FileManager.default
            var isDirectory: ObjCBool = false
            if fm.fileExists(atPath: path, isDirectory: &isDirectory) {
                if isDirectory.boolValue { return "it is a folder" }
                return fm.isWritableFile(atPath: path) ? nil : "permission denied"
            }
            let parent = (path as NSString).deletingLastPathComponent
            let folder = parent.isEmpty ? "." : parent
            guard fm.fileExists(atPath: folder, isDirectory: &isDirectory) else { return "the folder \(folder) does not exist" }
            if !isDirectory.boolValue { return "\(folder) is not a folder" }
            return fm.isWritableFile(atPath: folder) ? nil : "the folder \(folder) is not writable (permission denied)"
        }

        static func describe(_ s: ImportSummary, into path: String) -> String {
            func row(_ label: String, _ c: ImportSummary.Counts) -> [String] {
                [label, "\(ProgressBar.group(c.inserted)) new", "\(ProgressBar.group(c.updated)) updated", "\(ProgressBar.group(c.unchanged)) unchanged"]
            }
            var text = "imported into \(path) in \(String(format: "%.1f", s.seconds)) s\n"
            text += Format.columns([row("regions", s.regions), row("boundaries", s.boundaries), row("POIs", s.pois)])
            if s.rejected > 0 {
                text += "\nrejected \(ProgressBar.group(s.rejected)) row\(s.rejected == 1 ? "" : "s"): see \(s.rejectsPath ?? "the rejects file")"
            }
            return text
        }
    }
}
