import Foundation
import GazetteerCore

/// A CSV file with its header understood: fields are read by column name.
final class CSVTable {
    let reader: CSVReader
    let format: CSVFormat
    let header: [String]
    private let index: [String: Int]

    var path: String { reader.path }

    /// Opens the file and reads its header. Unknown, duplicate and missing required columns
    /// are refused here, before any row is read.
    init(path: String, encoding: TextEncoding) throws(ImportError) {
        reader = try CSVReader(path: path, encoding: encoding)
        guard let first = try reader.next() else {
            throw ImportError(file: path, line: nil, column: nil, problem: .emptyFile)
        }
        let names = first.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let format = CSVFormat.detect(names) else {
            throw ImportError(file: path, line: first.line, column: nil, problem: .unknownFormat(header: names))
        }
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() {
            if index[name] != nil {
                throw ImportError(file: path, line: first.line, column: name, problem: .duplicateColumn(name))
            }
            index[name] = i
        }
        let unknown = names.filter { !format.columns.contains($0) }
        if !unknown.isEmpty {
            throw ImportError(file: path, line: first.line, column: nil, problem: .unknownColumns(unknown, known: format.columns))
        }
        for required in format.requiredColumns where index[required] == nil {
            throw ImportError(file: path, line: first.line, column: nil, problem: .missingColumn(required))
        }
        self.format = format
        self.header = names
        self.index = index
    }

    /// The next data record. A ragged record is returned too: it is a row-level error
    /// (`checkFieldCount`), so `--skip-invalid` can set it aside and go on.
    func next() throws(ImportError) -> Row? {
        guard let record = try reader.next() else { return nil }
        return Row(table: self, record: record)
    }

    /// A column looked up once: rows are read by it without hashing its name per field.
    struct Column {
        let name: String
        /// Its place in the header; nil when the file has no such column.
        let index: Int?
    }

    func column(_ name: String) -> Column { Column(name: name, index: index[name]) }

    struct Row {
        let table: CSVTable
        let record: CSVReader.Record
        var line: Int { record.line }

        /// The trimmed value of a column; nil when the column is absent or the field empty.
        subscript(column: String) -> String? { self[table.column(column)] }

        subscript(column: Column) -> String? {
            guard let i = column.index, i < record.fields.count else { return nil }
            let raw = record.fields[i]
            // Most fields have nothing to trim; only go through Foundation when an end might.
            guard let first = raw.utf8.first, let last = raw.utf8.last else { return nil }
            if !Self.mayBeSpace(first) && !Self.mayBeSpace(last) { return raw }
            let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            return value.isEmpty ? nil : value
        }

        /// ASCII white space, or the lead byte of a non-ASCII space (U+00A0, U+2000…, U+3000).
        private static func mayBeSpace(_ b: UInt8) -> Bool {
            b == 0x20 || (0x09...0x0D).contains(b) || b == 0xC2 || b == 0xE2 || b == 0xE3 || b == 0xE1
        }

        func error(_ column: String?, _ problem: ImportError.Problem) -> ImportError {
            ImportError(file: table.path, line: record.line, column: column, problem: problem)
        }

        func checkFieldCount() throws(ImportError) {
            guard record.fields.count == table.header.count else {
                throw error(nil, .wrongFieldCount(expected: table.header.count, found: record.fields.count))
            }
        }

        func required(_ column: String) throws(ImportError) -> String { try required(table.column(column)) }

        func required(_ column: Column) throws(ImportError) -> String {
            guard let v = self[column] else { throw error(column.name, .missingValue) }
            return v
        }

        /// An administrative code of the given digit counts.
        /// The administrative code in `column`, as stored (a 9-digit town code widened to 12
        /// digits: see `AdminCode`), when it has one of the `digits` counts.
        func code(_ column: String, digits: Set<Int>) throws(ImportError) -> Int64? {
            try code(table.column(column), digits: digits)
        }

        func code(_ column: Column, digits: Set<Int>) throws(ImportError) -> Int64? {
            guard let v = self[column] else { return nil }
            guard let count = AdminCode.digitCount(v), digits.contains(count), let n = Int64(v) else {
                let expected = digits.sorted().map(String.init).joined(separator: " or ")
                throw error(column.name, .malformed(value: v, expected: "a \(expected)-digit code"))
            }
            return AdminCode.widened(n, digits: count)
        }

        func double(_ column: String) throws(ImportError) -> Double? { try double(table.column(column)) }

        func double(_ column: Column) throws(ImportError) -> Double? {
            guard let v = self[column] else { return nil }
            guard let d = Coordinate.plainDecimal(v), d.isFinite else {
                throw error(column.name, .malformed(value: v, expected: "a decimal number"))
            }
            return d
        }

        /// `c` converted from `system` to GCJ-02, which must still be a valid coordinate: BD-09's
        /// formula applies everywhere and moves points at the edge of the range past it.
        func converted(_ c: Coordinate, from system: CoordinateSystem, column: String = "lng") throws(ImportError) -> Coordinate {
            let g = c.converted(from: system, to: .gcj02)
            guard g.isValid else {
                throw error(column, .outOfRange(value: "\(c.longitude),\(c.latitude)", range: "longitude -180 to 180 and latitude -90 to 90 once converted from \(system.rawValue) to GCJ-02"))
            }
            return g
        }

        /// A longitude/latitude pair from two columns: both or neither, in range, not swapped.
        func coordinate(lng: String = "lng", lat: String = "lat", required: Bool) throws(ImportError) -> Coordinate? {
            try coordinate(lng: table.column(lng), lat: table.column(lat), required: required)
        }

        func coordinate(lng: Column, lat: Column, required: Bool) throws(ImportError) -> Coordinate? {
            let x = try double(lng)
            let y = try double(lat)
            switch (x, y) {
            case (nil, nil):
                if required { throw error(lng.name, .missingValue) }
                return nil
            case (nil, _): throw error(lng.name, .missingValue)
            case (_, nil): throw error(lat.name, .missingValue)
            case (let x?, let y?):
                if !(-90.0...90.0).contains(y) {
                    if (-90.0...90.0).contains(x) && (-180.0...180.0).contains(y) {
                        throw error(lat.name, .swappedCoordinates(longitude: self[lng]!, latitude: self[lat]!))
                    }
                    throw error(lat.name, .outOfRange(value: self[lat]!, range: "latitude -90 to 90"))
                }
                if !(-180.0...180.0).contains(x) {
                    throw error(lng.name, .outOfRange(value: self[lng]!, range: "longitude -180 to 180"))
                }
                return Coordinate(longitude: x, latitude: y)
            }
        }
    }
}
