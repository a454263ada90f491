import ArgumentParser
import Foundation
import Gazetteer
import GazetteerAMap

/// `geocode --csv`: a spreadsheet's address column geocoded, the file written back with the
/// answer in appended columns, a block of rows at a time on all cores.
struct GeocodeCSV {
    let path: String
    let column: String
    let header: Bool
    let encoding: TextEncoding
    let output: String?
    let city: String?
    let system: CoordinateSystem

    static let appended = ["province", "city", "district", "town", "adcode", "towncode", "lng", "lat", "level", "unmatched"]

    /// Geocodes every row; returns how many rows could not be geocoded.
    func run(_ repository: Repository) throws -> Int {
        let records = try CSVRecords(path: path, encoding: encoding)
        let bar = ProgressBar(label: "geocoding")
        let started = Date()
        var index: Int
        var width = 0
        var head = records.hasByteOrderMark ? "\u{FEFF}" : ""
        if header {
            guard let first = try records.next() else { throw Self.usage("\(path) is empty: no header line.") }
            index = try Self.columnIndex(column, in: first.fields, path: path)
            width = first.fields.count
            head += CSVRecords.line(first.fields + Self.appended)
        } else {
            index = Int(column)! - 1
        }
        let sink = try Sink(output)
        try sink.write(head)
        var failed = 0, rows = 0
        while true {
            var block: [CSVRecords.Record] = []
            while block.count < GazetteerCommand.Geocode.block, let r = try records.next() { block.append(r) }
            if block.isEmpty { break }
            let addresses = block.map { index < $0.fields.count ? $0.fields[index] : "" }
            var text = ""
            for (record, result) in zip(block, repository.geocode(addresses, city: city, system: system)) {
                var fields = record.fields
                // A short row is padded so the appended columns line up under their header.
                if fields.count < width { fields += Array(repeating: "", count: width - fields.count) }
                switch result {
                case .success(let g):
                    fields += Self.columns(g)
                case .failure(let error):
                    failed += 1
                    FileHandle.standardError.write(Data("\(path):\(record.line): column \(column): \(ErrorAdvice.message(for: error))\n".utf8))
                    fields += Array(repeating: "", count: Self.appended.count)
                }
                text += CSVRecords.line(fields)
            }
            try sink.write(text)
            rows += block.count
            bar.update(ImportProgress(reading: path, rows: rows, bytesDone: records.bytesRead, of: records.fileSize,
                                      seconds: Date().timeIntervalSince(started), finished: false))
        }
        try sink.finish()
        bar.update(ImportProgress(reading: path, rows: rows, bytesDone: records.fileSize, of: records.fileSize,
                                  seconds: Date().timeIntervalSince(started), finished: true))
        return failed
    }

    /// The appended columns for one answer, empty where nothing was found.
    static func columns(_ g: Geocode?) -> [String] {
        guard let g else { return Array(repeating: "", count: appended.count) }
        // AMap's "lng,lat" with six decimals, split in two.
        let lngLat = g.location.map { AMapShape.location($0).split(separator: ",").map(String.init) } ?? ["", ""]
        // As AMap's geo answer: a municipality is its own city (北京市, 北京市, 海淀区).
        var city = g.city?.name ?? ""
        if city.isEmpty, let p = g.province, AMapShape.isMunicipality(p.code) { city = p.name }
        return [g.province?.name ?? "", city, g.district?.name ?? "", g.town?.name ?? "", g.adcode ?? "",
                g.townCode9 ?? "", lngLat[0], lngLat[1], g.level, g.unmatched]
    }

    /// A usage error found once the file is open: said on stderr, exit status 64 as for a bad argument.
    static func usage(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("Error: \(message)\n".utf8))
        return ExitCode.validationFailure
    }

    /// Column `name` (a header name, or a number from 1) in `header`.
    static func columnIndex(_ name: String, in header: [String], path: String) throws -> Int {
        if let n = Int(name) {
            guard n <= header.count else { throw usage("--column \(n): \(path) has \(header.count) column\(header.count == 1 ? "" : "s").") }
            return n - 1
        }
        let wanted = name.trimmingCharacters(in: .whitespaces)
        if let i = header.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == wanted }) { return i }
        throw usage("--column \(name): \(path) has no such column; its header has \(header.map { "'\($0)'" }.joined(separator: ", ")).")
    }

    /// Where the copy goes: stdout, or a temporary file beside OUTPUT moved into place at the
    /// end, so a failed run leaves no half-written file under that name.
    struct Sink {
        let handle: FileHandle
        let temporary: String?
        let final: String?

        init(_ output: String?) throws {
            guard let output else {
                (handle, temporary, final) = (FileHandle.standardOutput, nil, nil)
                return
            }
            let tmp = output + ".partial"
            guard FileManager.default.createFile(atPath: tmp, contents: nil), let h = FileHandle(forWritingAtPath: tmp) else {
                throw GeocodeCSV.usage("--output \(output): cannot write there.")
            }
            (handle, temporary, final) = (h, tmp, output)
        }

        func write(_ text: String) throws {
            try WholeWrite.write(Array(text.utf8), to: handle.fileDescriptor, what: final ?? "the copy")
        }

        func finish() throws {
            guard let temporary, let final else { return }
            try handle.close()
            if FileManager.default.fileExists(atPath: final) { try FileManager.default.removeItem(atPath: final) }
            try FileManager.default.moveItem(atPath: temporary, toPath: final)
        }
    }
}
