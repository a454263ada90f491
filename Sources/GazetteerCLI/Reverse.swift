import ArgumentParser
import Dispatch
import Foundation
import Gazetteer

/// `gazetteer reverse`: the address of a point and the POIs around it (逆地理编码).
struct Reverse: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reverse geocode: province, city, district and town of a point, and the POIs around it.",
        discussion: """
            Example: gazetteer reverse --location 116.397477,39.908692

            Batch: one LNG,LAT per line in FILE (or - for stdin), one JSON object per line out, in order. \
            A bad line gets an error object ("status":"0") and the rest go on; the exit status is 1 if any line failed.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var query: QueryOptions

    @Option(help: ArgumentHelp("The point, longitude first: LNG,LAT (a negative longitude as --location=-70.1,40).", valueName: "lng,lat"))
    var location: String?

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
            var failed = 0
            try query.failingAsJSON { failed = try runBatch(try database.openRepository(), path: batch) }
            if failed > 0 { throw ExitCode(1) }
            return
        }
        try query.answer {
            let repository = try database.openRepository()
            let point = try Coordinate(parsing: location!)
            let answer = try repository.reverseGeocode(point, system: query.coordsys, radius: radius, poiLimit: limit)
            return query.json ? AMapShape.regeo(answer).text : Self.text(answer, radius: radius)
        }
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
            ("town", cell(a.town, note: a.townIsApproximate ? "  (nearest town centre: approximate)" : "")),
        ]
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

    /// Why a file cannot be opened for reading, in a few words.
    static func whyUnreadable(_ path: String) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "it is a folder, not a file" }
        if !FileManager.default.isReadableFile(atPath: path) { return "permission denied" }
        return "it cannot be opened"
    }

    /// Answers lines in blocks, each block spread over all cores, written in input order.
    private func runBatch(_ repository: Repository, path: String) throws -> Int {
        guard let input = path == "-" ? FileHandle.standardInput : FileHandle(forReadingAtPath: path) else {
            throw CLIError("cannot read --batch file \(path): \(Self.whyUnreadable(path))")
        }
        let system = query.coordsys
        let radius = radius, limit = limit
        let reader = LineReader(handle: input)
        let output = FileHandle.standardOutput
        var failed = 0
        var lineNumber = 0
        let blockSize = 16_384
        let cores = ProcessInfo.processInfo.activeProcessorCount
        while true {
            let lines = reader.next(blockSize)
            if lines.isEmpty { break }
            nonisolated(unsafe) let results = UnsafeMutableBufferPointer<String>.allocate(capacity: lines.count)
            results.initialize(repeating: "")
            defer {
                _ = results.deinitialize()
                results.deallocate()
            }
            let first = lineNumber + 1
            let slices = max(1, min(cores * 4, lines.count))
            DispatchQueue.concurrentPerform(iterations: slices) { slice in
                var i = slice * lines.count / slices
                let end = (slice + 1) * lines.count / slices
                while i < end {
                    let json: JSON
                    do {
                        let point = try Coordinate(parsing: lines[i])
                        json = AMapShape.regeo(try repository.reverseGeocode(point, system: system, radius: radius, poiLimit: limit))
                    } catch {
                        json = JSON.failure("line \(first + i): \(error)")
                    }
                    results[i] = json.text
                    i += 1
                }
            }
            lineNumber += lines.count
            var chunk = ""
            for r in results {
                if r.hasPrefix("{\"status\":\"0\"") { failed += 1 }
                chunk += r
                chunk += "\n"
            }
            output.write(Data(chunk.utf8))
        }
        return failed
    }
}

/// Reads lines in blocks from a file handle without loading the whole input.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var start = 0
    private var done = false

    init(handle: FileHandle) { self.handle = handle }

    func next(_ count: Int) -> [String] {
        var lines: [String] = []
        lines.reserveCapacity(count)
        while lines.count < count {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                var end = newline
                if end > start && buffer[end - 1] == 0x0D { end -= 1 }
                lines.append(String(decoding: buffer[start..<end], as: UTF8.self))
                start = newline + 1
                continue
            }
            if done {
                if start < buffer.count { lines.append(String(decoding: buffer[start...], as: UTF8.self)) }
                buffer.removeAll()
                start = 0
                break
            }
            // Keep the unfinished line, then read more.
            buffer.removeSubrange(0..<start)
            start = 0
            let more = handle.readData(ofLength: 1 << 20)
            if more.isEmpty { done = true } else { buffer.append(contentsOf: more) }
        }
        return lines
    }
}
