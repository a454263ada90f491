import Foundation

/// A CSV file read record by record, for work outside the importer (`geocode --csv`): the
/// importer's reader (RFC 4180, UTF-8 or GB18030, BOM, CRLF, every problem with its line),
/// without its table rules.
public final class CSVRecords {
    public struct Record: Sendable {
        public var fields: [String]
        /// The line (1-based) the record starts on.
        public var line: Int
    }

    private let reader: CSVReader
    public let path: String
    /// Bytes read so far and the file's size, for progress.
    public var bytesRead: Int { reader.bytesRead }
    public var fileSize: Int { reader.fileSize }
    /// The file starts with a UTF-8 byte-order mark (a spreadsheet's export): a copy written
    /// back should have one too, or the spreadsheet reads it in the wrong encoding.
    public let hasByteOrderMark: Bool

    public init(path: String, encoding: TextEncoding = .utf8) throws(ImportError) {
        reader = try CSVReader(path: path, encoding: encoding)
        self.path = path
        var bom = false
        if encoding == .utf8, let probe = try? FileByteSource(path: path) {
            let head = try probe.read(maxCount: 3)
            bom = head == [0xEF, 0xBB, 0xBF]
        }
        hasByteOrderMark = bom
    }

    /// The next record, or nil at the end. Blank lines are skipped.
    public func next() throws(ImportError) -> Record? {
        try reader.next().map { Record(fields: $0.fields, line: $0.line) }
    }

    /// One CSV line (with its CRLF-free `\n`): fields quoted only where they must be.
    public static func line(_ fields: [String]) -> String {
        fields.map(RejectWriter.quote).joined(separator: ",") + "\n"
    }
}

extension ImportProgress {
    /// A progress report for work that reads a file as an import does (`geocode --csv`).
    public init(reading file: String, rows: Int, bytesDone: Int, of bytesTotal: Int, seconds elapsedSeconds: Double, finished: Bool) {
        self.file = file
        self.rows = rows
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.elapsedSeconds = elapsedSeconds
        self.finished = finished
    }
}
