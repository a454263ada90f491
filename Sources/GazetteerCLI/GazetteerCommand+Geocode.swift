import ArgumentParser
import Foundation
import Gazetteer
import GazetteerAMap

extension GazetteerCommand {
    /// `gazetteer geocode`: a Chinese address to a region or POI and its location (地理编码).
    struct Geocode: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geocode",
            abstract: "Geocode a free-text Chinese address: the best region or POI, its location and what stayed unmatched.",
            discussion: """
                Example: gazetteer geocode 浙江省杭州市西湖区灵隐街道法云弄16号

                Batch: one address per line in FILE (or - for stdin), one JSON line out per line in, in order \
                (AMap's geo answer: "count":"0" where nothing was found), on all cores. A line that cannot be \
                geocoded gets an error object ("status":"0", the line number in "info") and the rest go on; the \
                exit status is 1 if any line failed.

                CSV: gazetteer geocode --csv FILE --column NAME|N [--city C] [--output OUT] reads a CSV \
                (UTF-8, or GBK with --encoding gbk, as import does) and writes it back, in UTF-8, with columns \
                appended: province, city, district, town, adcode, towncode (9 digits), lng, lat, level, unmatched \
                (empty where nothing was found). A progress bar shows on a terminal. A row that cannot be \
                geocoded is reported on stderr with its line, keeps empty columns, and the exit status is 1.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var query: QueryOptions

        @Argument(help: "The address.")
        var address: String?

        @Option(help: ArgumentHelp("Read addresses from FILE, one per line ('-' for stdin); print JSON lines.", valueName: "file"))
        var batch: String?

        @Option(help: ArgumentHelp("Read a CSV file and write it back with the geocode appended in columns (see --column).", valueName: "file"))
        var csv: String?

        @Option(help: ArgumentHelp("With --csv: the column holding the address, by header name or number (1 is the first).", valueName: "name|n"))
        var column: String?

        @Option(help: ArgumentHelp("With --csv: text encoding of the file, utf8 or gbk (GBK/GB18030). The copy is written in UTF-8.", valueName: "name"))
        var encoding: TextEncoding = .utf8

        @Flag(help: "With --csv: the file has no header line (give --column as a number).")
        var noHeader = false

        @Option(name: .shortAndLong, help: ArgumentHelp("With --csv: write the copy to FILE (written whole, then moved into place) instead of stdout.", valueName: "file"))
        var output: String?

        @Option(help: ArgumentHelp("The city the address is in (name or adcode), to resolve ambiguous names.", valueName: "name|adcode"))
        var city: String?

        func validate() throws {
            if [address != nil, batch != nil, csv != nil].filter({ $0 }).count != 1 {
                throw ValidationError("give one of <address>, --batch FILE or --csv FILE.")
            }
            if csv != nil {
                guard let column, !column.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw ValidationError("--csv needs --column NAME|N: the column that holds the addresses.")
                }
                if noHeader, Int(column) == nil { throw ValidationError("--column must be a number with --no-header (1 is the first column), not '\(column)'.") }
                if let n = Int(column), n < 1 { throw ValidationError("--column \(n): columns are numbered from 1.") }
            } else if column != nil || output != nil || noHeader || encoding != .utf8 {
                throw ValidationError("--column, --output, --encoding and --no-header go with --csv FILE.")
            }
        }

        func run() throws {
            if let csv {
                let repository = try database.openRepository()
                let failed = try GeocodeCSV(path: csv, column: column!, header: !noHeader, encoding: encoding, output: output,
                                            city: city, system: query.coordsys).run(repository)
                GazetteerCommand.end(keeping: repository, status: failed > 0 ? 1 : 0)
            }
            if let batch {
                var failed = 0
                var repository: Repository?
                try query.failingAsJSON {
                    let opened = try database.openRepository()
                    repository = opened
                    failed = try runBatch(opened, path: batch)
                }
                GazetteerCommand.end(keeping: repository, status: failed > 0 ? 1 : 0)
            }
            let address = address!
            try query.answer {
                if query.json {
                    return try query.amap(try database.openRepository(), "/v3/geocode/geo", ["address": address, "city": city])
                }
                let result = try database.openRepository().geocode(address, city: city, system: query.coordsys)
                guard let g = result else { return "no region or POI found in '\(address)'" }
                var rows: [(String, String)] = [("address", g.formattedAddress), ("level", g.level)]
                for (label, region) in [("province", g.province), ("city", g.city), ("district", g.district), ("town", g.town)] {
                    if let region { rows.append((label, "\(region.name)  \(region.code)")) }
                }
                if let code = g.townCode9 { rows.append(("town code", code + "  (9 digits)")) }
                if let poi = g.poi { rows.append(("POI", "\(poi.name)  \(poi.id)")) }
                if let l = g.location { rows.append(("location", AMapShape.location(l) + (g.locationIsApproximate ? "  (approximate)" : ""))) }
                if !g.unmatched.isEmpty { rows.append(("unmatched", g.unmatched)) }
                if !g.formerNames.isEmpty { rows.append(("former name", g.formerNames.joined(separator: ", ") + "  (read as today's region)")) }
                for other in g.namesakes { rows.append(("or", "\(other.formattedAddress)  \(other.adcode ?? "")  (a namesake; the text does not say which)")) }
                return Format.table(rows)
            }
        }

        /// Addresses geocoded together by `--batch` and `--csv`: each block starts the workers'
        /// parsers afresh (the regions and POI starts they remember), which at 4,096 cost a
        /// twentieth of the work; the block's answers and lines, some 20 MB, are what a larger
        /// one would add to the peak.
        static let block = 16_384

        /// Reads lines in blocks, geocodes each block on all cores, writes it in input order.
        private func runBatch(_ repository: Repository, path: String) throws -> Int {
            let reader = LineReader(handle: try Reverse.openBatchInput(path))
            var failed = 0
            var lineNumber = 0
            while true {
                let ranges = reader.next(Self.block)
                if ranges.isEmpty { break }
                var lines = ranges.map { String(decoding: reader.buffer[$0], as: UTF8.self) }
                if lineNumber == 0, lines[0].hasPrefix("\u{FEFF}") { lines[0].removeFirst() }
                let results = repository.geocode(lines, city: city, system: query.coordsys)
                // The JSON lines on all cores too: written by one thread, they kept the others idle.
                let parts = min(results.count, ProcessInfo.processInfo.activeProcessorCount * 4)
                nonisolated(unsafe) var outs = [(text: [UInt8], failed: Int)](repeating: ([], 0), count: parts)
                let first = lineNumber + 1
                outs.withUnsafeMutableBufferPointer { outs in
                    nonisolated(unsafe) let outs = outs
                    DispatchQueue.concurrentPerform(iterations: parts) { part in
                        var out: [UInt8] = [], failed = 0
                        for i in (part * results.count / parts)..<((part + 1) * results.count / parts) {
                            switch results[i] {
                            case .success(let g):
                                AMapShape.writeGeoAnswer(g, into: &out)
                            case .failure(let error):
                                JSON.failure("line \(first + i): \(ErrorAdvice.message(for: error))").write(into: &out)
                                failed += 1
                            }
                            out.append(0x0A)
                        }
                        outs[part] = (out, failed)
                    }
                }
                lineNumber += lines.count
                failed += outs.reduce(0) { $0 + $1.failed }
                for part in outs { try WholeWrite.write(part.text, to: STDOUT_FILENO, what: "the answers") }
            }
            return failed
        }
    }
}
