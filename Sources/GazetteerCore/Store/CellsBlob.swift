import Foundation

/// Plain numbers and arrays of them packed one after another into a blob, in this machine's
/// byte order, for the cells stored in `batch_cells` (`StoredBatchCells`): read back with a
/// copy per array, where building the cells costs a pass over every boundary or POI.
package struct CellsBlobWriter {
    package private(set) var bytes: [UInt8] = []

    package init(format: UInt32) { put(format) }

    package mutating func put<T: BitwiseCopyable>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// The count, then the elements.
    package mutating func put<T: BitwiseCopyable>(_ array: [T]) {
        put(Int64(array.count))
        array.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }
}

/// Reads what `CellsBlobWriter` wrote, in the same order; nil for anything that does not fit
/// (a blob cut short, or of another format), so that a batch builds the cells instead.
package struct CellsBlobReader {
    private let raw: UnsafeRawBufferPointer
    private var at = 0

    /// Nil unless the blob starts with `format`.
    package init?(_ raw: UnsafeRawBufferPointer, format: UInt32) {
        self.raw = raw
        guard get(UInt32.self) == format else { return nil }
    }

    package mutating func get<T: BitwiseCopyable>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard raw.count - at >= size else { return nil }
        defer { at += size }
        return raw.loadUnaligned(fromByteOffset: at, as: T.self)
    }

    package mutating func array<T: BitwiseCopyable>(_: T.Type) -> [T]? {
        guard let n = get(Int64.self), n >= 0, n <= Int64(raw.count - at) / Int64(Swift.max(1, MemoryLayout<T>.stride)) else { return nil }
        let count = Int(n), bytes = count * MemoryLayout<T>.stride
        defer { at += bytes }
        return [T](unsafeUninitializedCapacity: count) { buffer, done in
            if count > 0 { UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: raw.baseAddress! + at, byteCount: bytes) }
            done = count
        }
    }

    /// Whether every byte was read: a longer blob is of another format.
    package var isAtEnd: Bool { at == raw.count }
}
