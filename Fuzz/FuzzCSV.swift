// Fuzz target: the CSV reader (UTF-8 and GB18030), the header checks of CSVTable and the
// row validators of all three formats. Errors are expected; crashes and hangs are bugs.
import Foundation

private let csvPath: String = {
    let path = "\(FuzzFixture.scratch)/gazetteer-fuzz-\(getpid()).csv"
    atexit { unlink("\(FuzzFixture.scratch)/gazetteer-fuzz-\(getpid()).csv") }
    return path
}()

private func writeInput(_ data: UnsafePointer<UInt8>?, _ size: Int) {
    guard let f = fopen(csvPath, "wb") else { fatalError("cannot write \(csvPath)") }
    if let data, size > 0 { _ = fwrite(data, 1, size, f) }
    fclose(f)
}

private func readAll(_ encoding: TextEncoding) {
    do {
        let reader = try CSVReader(path: csvPath, encoding: encoding)
        var lastLine = 0
        while let record = try reader.next() {
            // Lines only move forward, and a record always has a field.
            precondition(record.line > lastLine, "record line \(record.line) after \(lastLine)")
            precondition(!record.fields.isEmpty)
            lastLine = record.line
        }
    } catch {
        _ = error.description
    }
}

private func readTable(_ encoding: TextEncoding) {
    let table: CSVTable
    do { table = try CSVTable(path: csvPath, encoding: encoding) } catch { _ = error.description; return }
    while true {
        let row: CSVTable.Row?
        do { row = try table.next() } catch { _ = error.description; return }
        guard let row else { return }
        // Row's subscript trusts the field count (the validators check it first).
        if (try? row.checkFieldCount()) != nil {
            for column in table.header { _ = row[column] }
        }
        for system in [CoordinateSystem.gcj02, .wgs84, .bd09] {
            do {
                switch table.format {
                case .regions:
                    let r = try RegionRow(csv: row, coordinateSystem: system)
                    if let c = r.center { precondition(c.isValid, "invalid centre \(c)") }
                case .pois:
                    let p = try POIRow(csv: row, coordinateSystem: system)
                    precondition(p.location.isValid, "invalid location \(p.location)")
                case .boundaries:
                    _ = try BoundaryRecord(row: row, coordinateSystem: system)
                }
            } catch {
                _ = error.description
            }
        }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCSV(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    writeInput(data, size)
    for encoding in TextEncoding.allCases {
        readAll(encoding)
        readTable(encoding)
    }
    return 0
}
