import Foundation
import GazetteerCore

/// A POI file read, parsed and tokenized on a second thread while the importer's thread
/// writes to SQLite: the two halves of an import's work each get a core. Rows come out in
/// file order, in batches, through a bounded queue (memory stays flat however big the file);
/// a file that cannot be read further ends the rows with its error, as reading it in line
/// would have.
final class ParsedPOIQueue: @unchecked Sendable {
    /// One row of the file as the importer's thread needs it.
    struct Item {
        var row: CSVTable.Row
        /// The row's POI, or why the file's row is not one (set aside or reported as a row error).
        var record: Result<POIRow, ImportError>
        /// `SearchTokens.index` of the POI's name; nil when the side index took the name (it
        /// tokenizes on its own thread) or `record` failed.
        var madeTokens: (grams: String, chars: String)?
        /// The file's bytes read once this row was, for progress.
        var bytesRead: Int
        /// The rowid `SideSearchIndex` indexed the POI under (nil: not indexed aside).
        var sideRowid: Int64?

        /// The tokens of `record`, the POI of this row: made here when the reading thread did not.
        func tokens(of record: POIRow) -> (grams: String, chars: String) {
            madeTokens ?? SearchTokens.index(record.name)
        }
    }

    private static let batchSize = 256
    private static let capacity = 8  // batches ahead of the writer

    // Guarded by `condition`.
    private let condition = NSCondition()
    private var batches: [[Item]] = []
    /// Batches the writer is done with, for the reading thread to free (see `next(into:)`).
    private var spent: [[Item]] = []
    private var failure: ImportError?
    private var finished = false
    private var stopped = false
    private var producerDone = false

    /// Starts reading `table` (which this queue then owns until `stop()` returns). With `side`,
    /// this thread also hands each POI's name to it, and tokenizes only what it refuses.
    init(table: CSVTable, coordinateSystem: CoordinateSystem, side: SideSearchIndex? = nil) {
        let source = UncheckedTable(table: table)
        Thread.detachNewThread { [self] in
            self.produce(source.table, coordinateSystem, side)
        }
    }

    /// The next batch of rows, in file order, in `batch`; false when the file is done. Throws
    /// the error that stopped reading the file, after every row before it.
    ///
    /// The rows `batch` held go back to the reading thread, which frees them: their strings
    /// were allocated there, memory goes back fastest to the thread it came from, and the
    /// writer (the import's slower thread) no longer spends a few thousand instructions a row
    /// on it.
    func next(into batch: inout [Item]) throws(ImportError) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !batch.isEmpty { spent.append(batch) }
        batch = []
        while batches.isEmpty && !finished { condition.wait() }
        if !batches.isEmpty {
            condition.broadcast()
            batch = batches.removeFirst()
            return true
        }
        if let failure { throw failure }
        return false
    }

    /// Stops the reader and waits until it no longer touches the table. Call once done.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        while !producerDone { condition.wait() }
        condition.unlock()
    }

    private func produce(_ table: CSVTable, _ system: CoordinateSystem, _ side: SideSearchIndex?) {
        var batch: [Item] = []
        batch.reserveCapacity(Self.batchSize)
        var failure: ImportError?
        do {
            let columns = POIRow.CSVColumns(table)
            while let row = try table.next() {
                let record = Result { () throws(ImportError) in try POIRow(csv: row, columns: columns, coordinateSystem: system) }
                var tokens: (grams: String, chars: String)?
                var sideRowid: Int64?
                if let name = try? record.get().name {
                    sideRowid = side?.add(name: name)
                    if sideRowid == nil { tokens = SearchTokens.index(name) }
                }
                batch.append(Item(row: row, record: record, madeTokens: tokens, bytesRead: table.reader.bytesRead, sideRowid: sideRowid))
                if batch.count == Self.batchSize {
                    guard var done = put(batch) else { break }
                    // A spent batch's buffer is the next one's; the rest are freed here.
                    batch = done.popLast() ?? []
                    batch.removeAll(keepingCapacity: true)
                }
            }
        } catch {
            failure = error
        }
        condition.lock()
        if !stopped {
            if !batch.isEmpty { batches.append(batch) }
            self.failure = failure
        }
        finished = true
        producerDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hands a batch over, waiting while the queue is full; the batches the writer is done
    /// with, or nil once stopped.
    private func put(_ batch: [Item]) -> [[Item]]? {
        condition.lock()
        defer { condition.unlock() }
        while batches.count >= Self.capacity && !stopped { condition.wait() }
        if stopped { return nil }
        batches.append(batch)
        condition.broadcast()
        let done = spent
        spent = []
        return done
    }
}

/// The table, handed to the reading thread: only that thread uses it until `stop()`.
private struct UncheckedTable: @unchecked Sendable {
    let table: CSVTable
}
