import Foundation
import GazetteerSQLite

/// Where a grid of cells lies and its size: how stored cells begin.
package struct StoredGrid {
    package var originLng: Double, originLat: Double, cellDegrees: Double
    package var columns: Int, rows: Int
}

/// Plain numbers and arrays of them packed one after another into a blob, in this machine's
/// byte order, for what the importer stores (`StoredDerived`: the region cells, the name table
/// and region rows): read back with a copy per array, where building them costs a pass over
/// every boundary or region.
package struct CellsBlobWriter {
    package private(set) var bytes: [UInt8] = []

    package init(format: UInt32) { put(format) }

    package mutating func put<T: BitwiseCopyable>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    package mutating func put(_ g: StoredGrid) {
        put(g.originLng); put(g.originLat); put(g.cellDegrees); put(Int64(g.columns)); put(Int64(g.rows))
    }

    /// The count, then the elements.
    package mutating func put<T: BitwiseCopyable>(_ array: [T]) {
        put(Int64(array.count))
        array.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }
}

/// Reads what `CellsBlobWriter` wrote, in the same order, each array straight into its own
/// memory (`BlobReader`); nil for anything that does not fit (a blob cut short, or of another
/// format), so that a batch builds the cells instead.
package struct CellsBlobReader {
    private let blob: BlobReader
    private var at = 0

    /// Nil unless the blob starts with `format`.
    package init?(_ blob: BlobReader, format: UInt32) {
        self.blob = blob
        guard get(UInt32.self) == format else { return nil }
    }

    package mutating func get<T: BitwiseCopyable>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        var value: T? = nil
        let read = withUnsafeTemporaryAllocation(byteCount: size, alignment: MemoryLayout<T>.alignment) { buffer -> Bool in
            guard blob.read(into: buffer, at: at) else { return false }
            value = buffer.load(as: T.self)
            return true
        }
        guard read else { return nil }
        at += size
        return value
    }

    /// The grid `put(_: StoredGrid)` wrote (nil: a negative size, or more than `maxCells` cells).
    package mutating func grid(maxCells: Int) -> StoredGrid? {
        guard let originLng = get(Double.self), let originLat = get(Double.self), let cellDegrees = get(Double.self),
              let columns = get(Int64.self), let rows = get(Int64.self),
              columns >= 0, rows >= 0, case let (cells, overflow) = columns.multipliedReportingOverflow(by: rows), !overflow, cells <= Int64(maxCells)
        else { return nil }
        return StoredGrid(originLng: originLng, originLat: originLat, cellDegrees: cellDegrees, columns: Int(columns), rows: Int(rows))
    }

    package mutating func array<T: BitwiseCopyable>(_: T.Type) -> [T]? {
        guard let n = get(Int64.self), n >= 0, n <= Int64(blob.count - at) / Int64(Swift.max(1, MemoryLayout<T>.stride)) else { return nil }
        let count = Int(n), bytes = count * MemoryLayout<T>.stride
        var read = true
        let array = [T](unsafeUninitializedCapacity: count) { buffer, done in
            read = blob.read(into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress, count: bytes), at: at)
            done = read ? count : 0
        }
        guard read else { return nil }
        at += bytes
        return array
    }

    /// Steps over an array `array(_:)` would read, without reading it; false where it would fail.
    package mutating func skipArray<T: BitwiseCopyable>(_: T.Type) -> Bool {
        guard let n = get(Int64.self), n >= 0, n <= Int64(blob.count - at) / Int64(Swift.max(1, MemoryLayout<T>.stride)) else { return false }
        at += Int(n) * MemoryLayout<T>.stride
        return true
    }

    /// Whether every byte was read: a longer blob is of another format.
    package var isAtEnd: Bool { at == blob.count }
}
