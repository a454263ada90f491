import ArgumentParser
import Dispatch
import Foundation
import GazetteerSupport
import Gazetteer
import GazetteerAMap

extension GazetteerCommand {
    /// `gazetteer reverse`: the address of a point and the POIs around it (逆地理编码).
    struct Reverse: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reverse",
            abstract: "Reverse geocode: province, city, district and town of a point, and the POIs around it.",
            discussion: """
                Example: gazetteer reverse --location 116.397477,39.908692

                Batch: one LNG,LAT per line in FILE (or - for stdin), one JSON object per line out, in order. \
                A bad line gets an error object ("status":"0") and the rest go on; the exit status is 1 if any line failed.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var query: QueryOptions

        @Option(help: ArgumentHelp("The point, longitude first: LNG,LAT (a negative longitude as --location=-70.1,40).", valueName: "lng,lat"),
                transform: parseLocation)
        var location: Coordinate?

        @Option(help: ArgumentHelp("List POIs within this many metres (0 to 50000; 0 lists none).", valueName: "metres"))
        var radius: Double = 1000

        @Option(help: ArgumentHelp("Most POIs listed, 0 to 100 (0 lists none).", valueName: "n"))
        var limit: Int = Repository.reverseGeocodePOILimit

        @Option(help: ArgumentHelp("Read points from FILE, one LNG,LAT per line ('-' for stdin); print JSON lines.", valueName: "file"))
        var batch: String?

        func validate() throws {
            if (location == nil) == (batch == nil) { throw ValidationError("give either --location LNG,LAT or --batch FILE.") }
            if !radius.isFinite || radius < 0 || radius > 50_000 { throw ValidationError("--radius must be 0 to 50000 metres.") }
            if limit < 0 || limit > 100 { throw ValidationError("--limit must be 0 to 100.") }
        }

        func run() throws {
            if let batch {
                // Before the database is opened, so that every arena grows as a batch's should.
                MallocTuning.forBatch()
                var failed = 0
                try query.failingAsJSON { failed = try runBatch(try database.openRepository(), path: batch) }
                if failed > 0 { throw ExitCode(1) }
                return
            }
            try query.answer {
                let repository = try database.openRepository()
                if query.json {
                    return try query.amap(repository, "/v3/geocode/regeo", Self.parameters(location!, radius: radius)) {
                        $0.regeoPOILimit = limit
                        $0.regeoMaxRadius = 50_000
                    }
                }
                let answer = try repository.reverseGeocode(location!, system: query.coordsys, radius: radius, poiLimit: limit)
                return Self.text(answer, radius: radius)
            }
        }

        /// The regeo request this verb makes: extensions=all, as it lists POIs.
        static func parameters(_ location: Coordinate, radius: Double) -> [String: String?] {
            ["location": amapLocation(location), "radius": String(radius), "extensions": "all"]
        }

        static func text(_ r: ReverseGeocode, radius: Double) -> String {
            guard !r.address.isEmpty else {
                return "\(AMapShape.location(r.location)): outside the gazetteer's data (no province, city or district here)"
            }
            let a = r.address
            func cell(_ region: Region?, note: String = "") -> String {
                guard let region else { return "—" }
                return "\(region.name)  \(region.code)\(note)"
            }
            var rows: [(String, String)] = [
                ("province", cell(a.province)),
                ("city", cell(a.city)),
                ("district", cell(a.district)),
                ("town", a.town == nil ? "—  (no town could be named likely right here)"
                    : cell(a.town, note: a.townIsApproximate ? "  (nearest town centre: approximate)" : "")),
            ]
            if let code = a.townCode9 { rows.append(("town code", code + "  (9 digits)")) }
            if let code = a.citycode { rows.append(("citycode", code)) }
            var out = r.formattedAddress + "\n" + Format.table(rows)
            if radius > 0 {
                if r.pois.isEmpty {
                    out += "\n\nno POIs within \(Format.distance(radius))"
                } else {
                    out += "\n\nPOIs within \(Format.distance(radius)):\n"
                    out += Format.columns(r.pois.map { [Format.distance($0.distance), $0.poi.name, $0.poi.type ?? ""] })
                }
            }
            return out
        }

        /// The --batch input, or an error saying in a few words why it cannot be read. A folder
        /// is refused before opening: FileHandle opens one, and reading it then traps.
        static func openBatchInput(_ path: String) throws -> FileHandle {
            if path == "-" { return FileHandle.standardInput }
            var isDirectory: ObjCBool = false
            let why: String
            if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
                why = "no such file"
            } else if isDirectory.boolValue {
                why = "it is a folder, not a file"
            } else if let handle = FileHandle(forReadingAtPath: path) {
                return handle
            } else {
                why = FileManager.default.isReadableFile(atPath: path) ? "it cannot be opened" : "permission denied"
            }
            throw CLIError("cannot read --batch file \(path): \(why)")
        }
    }
}

/// Reads lines in blocks from a file handle without loading the whole input.
final class LineReader {
    private let handle: FileHandle
    /// The bytes read: the lines `next` gave last, and what follows them.
    private(set) var buffer: [UInt8] = []
    /// Where the first line not yet given starts.
    private var start = 0
    private var done = false

    init(handle: FileHandle) { self.handle = handle }

    /// Up to `count` lines, as ranges of `buffer` (valid until the next call), without their
    /// line feed or a carriage return before it; the last line may lack the line feed.
    func next(_ count: Int) -> [Range<Int>] {
        // Drop the lines given last time, keeping the unfinished one.
        buffer.removeSubrange(0..<start)
        start = 0
        var lines: [Range<Int>] = []
        lines.reserveCapacity(count)
        var scanned = 0  // no line feed before this
        while lines.count < count {
            let newline = buffer.withUnsafeBufferPointer { b -> Int? in
                guard scanned < b.count, let p = memchr(b.baseAddress! + scanned, 0x0A, b.count - scanned) else { return nil }
                return b.baseAddress!.distance(to: p.assumingMemoryBound(to: UInt8.self))
            }
            if let newline {
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                lines.append(start..<end)
                start = newline + 1
                scanned = start
                continue
            }
            scanned = buffer.count
            if done {
                if start < buffer.count { lines.append(start..<buffer.count) }
                start = buffer.count
                break
            }
            let more = handle.readData(ofLength: 1 << 20)
            if more.isEmpty { done = true } else { buffer.append(contentsOf: more) }
        }
        return lines
    }
}
