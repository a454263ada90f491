import Foundation
import GazetteerCore

/// Writes rows that `--skip-invalid` set aside, as CSV: where each came from, why, and the
/// row's own fields, so they can be fixed and imported again.
final class RejectWriter {
    let path: String
    private let handle: FileHandle
    private var buffer = ""

    init(path: String) throws(ImportError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path)
        else {
            throw ImportError(file: path, line: nil, column: nil, problem: .cannotWrite("cannot create the rejects file (does its folder exist, and may it be written?)"))
        }
        self.handle = handle
        buffer = "file,line,column,reason,fields\n"
    }

    func write(_ error: ImportError, fields: [String]) throws {
        let row = [error.file, error.line.map(String.init) ?? "", error.column ?? "", error.reason,
                   fields.map(Self.quote).joined(separator: ",")]
        buffer += row.map(Self.quote).joined(separator: ",") + "\n"
        if buffer.utf8.count > 1 << 16 { try flush() }
    }

    func close() throws {
        try flush()
        try handle.close()
    }

    private func flush() throws {
        try handle.write(contentsOf: Data(buffer.utf8))
        buffer = ""
    }

    /// RFC 4180 quoting, only where needed.
    static func quote(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
