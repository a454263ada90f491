import GazetteerCore

/// One problem in an input file, with where it is: file, line (of the record's start) and
/// column name, so a person can open the file and fix it.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Problem: Sendable, Equatable {
        case cannotRead(String)
        case cannotWrite(String)
        case notUTF8(field: Int)
        case badEncoding(String, offset: Int)
        case unterminatedQuote
        case textAfterClosingQuote
        case nulByte
        case emptyFile
        case unknownFormat(header: [String])
        case unknownColumns([String], known: [String])
        case duplicateColumn(String)
        case missingColumn(String)
        case wrongFieldCount(expected: Int, found: Int)
        case missingValue
        /// A value that does not parse; the string says what was expected.
        case malformed(value: String, expected: String)
        case outOfRange(value: String, range: String)
        case swappedCoordinates(longitude: String, latitude: String)
        case duplicateKey(String, firstLine: Int?, firstFile: String?)
        case unknownParent(String)
        case levelMismatch(String)
        case unknownRegion(String)
        case invalidGeometry(String)
    }

    public var file: String
    /// 1-based line on which the record starts; nil for file-level problems.
    public var line: Int?
    /// Header name of the column at fault.
    public var column: String?
    public var problem: Problem

    public init(file: String, line: Int?, column: String?, problem: Problem) {
        self.file = file
        self.line = line
        self.column = column
        self.problem = problem
    }

    public var description: String {
        var location = file
        if let line { location += ":\(line)" }
        if let column { location += ": column '\(column)'" }
        return "\(location): \(reason)"
    }

    /// The problem alone, without where it is.
    public var reason: String {
        switch problem {
        case .cannotRead(let why):
            return "cannot read the file: \(why)"
        case .cannotWrite(let why):
            return "cannot write the file: \(why)"
        case .notUTF8(let field):
            return "field \(field) is not valid UTF-8. If the file was saved as GBK/GB18030 "
                + "(usual for Chinese spreadsheets), import it as GB18030 (TextEncoding.gb18030), or save it as UTF-8"
        case .badEncoding(let encoding, let offset):
            return "the bytes at offset \(offset) are not valid \(encoding); check the file's encoding (UTF-8 or GB18030)"
        case .unterminatedQuote:
            return "a quoted field that starts here is never closed (a missing \")"
        case .textAfterClosingQuote:
            return "text after a closing quote; inside a quoted field write a quote as \"\""
        case .nulByte:
            return "a NUL byte; this is not a text CSV file"
        case .emptyFile:
            return "the file is empty; it needs at least a header row"
        case .unknownFormat(let header):
            return "cannot tell what this file holds from its header (\(header.prefix(12).joined(separator: ","))). "
                + "Regions need code,level,name; boundaries need code,geometry; POIs need id,name,lng,lat (see docs/csv-formats.md)"
        case .unknownColumns(let columns, let known):
            return "unknown column\(columns.count > 1 ? "s" : "") \(columns.map { "'\($0)'" }.joined(separator: ", ")); "
                + "this format has: \(known.joined(separator: ", "))"
        case .duplicateColumn(let name):
            return "the header names column '\(name)' twice"
        case .missingColumn(let name):
            return "the header has no column '\(name)', which this format requires"
        case .wrongFieldCount(let expected, let found):
            return "\(found) field\(found == 1 ? "" : "s") where the header has \(expected)"
        case .missingValue:
            return "a value is required"
        case .malformed(let value, let expected):
            return "'\(Self.clip(value))' is not \(expected)"
        case .outOfRange(let value, let range):
            return "\(Self.clip(value)) is out of range (\(range))"
        case .swappedCoordinates(let lng, let lat):
            return "latitude \(lat) is out of range while longitude \(lng) would fit as a latitude: longitude and latitude look swapped (longitude comes first)"
        case .duplicateKey(let key, let firstLine, let firstFile):
            var text = "duplicate id \(key)"
            if let firstLine { text += ", first seen at \(firstFile.map { "\($0):" } ?? "line ")\(firstLine)" }
            return text
        case .unknownParent(let text), .levelMismatch(let text), .unknownRegion(let text), .invalidGeometry(let text):
            return text
        }
    }

    private static func clip(_ s: String) -> String {
        s.count > 60 ? String(s.prefix(60)) + "…" : s
    }
}

/// An import that changed nothing because of these errors (the first ones, in file order).
public struct ImportFailure: Error, Sendable, CustomStringConvertible {
    public var errors: [ImportError]
    /// Errors found beyond those listed.
    public var omitted: Int

    public init(errors: [ImportError], omitted: Int = 0) {
        self.errors = errors
        self.omitted = omitted
    }

    public var description: String {
        var lines = errors.map(\.description)
        if omitted > 0 { lines.append("… and \(omitted) more error\(omitted == 1 ? "" : "s")") }
        lines.append("Nothing was imported; the database is as it was. Fix the rows above, or set ImportOptions.skipInvalid to import the valid rows and write the rejects to a file.")
        return lines.joined(separator: "\n")
    }
}
