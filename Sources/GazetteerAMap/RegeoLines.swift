import Foundation
import Gazetteer

/// The `reverse --batch` JSON line of each address key of a batch without POIs
/// (`Repository.placeBatch`), written once by `AMapShape.writeRegeo` and cut where the point's
/// location goes: every later point with that key names the two halves around its location
/// (`SplicedOutput.borrow`), and only the location is written per point.
/// The bytes are the writer's own, so they cannot drift from the lone answer's.
///
/// The halves are kept in blocks that never move or change, until this is dropped: a block's
/// output names them until it is written. Used by one thread at a time, beside its
/// `ReverseBatchPlaces`.
package final class RegeoLines {
    /// All of it in one value, so that a point's write is one access to this class's storage
    /// (each access to a stored property of a class is checked for exclusivity at run time).
    private var lines = Lines()

    package init() {}

    deinit { lines.free() }

    /// Adds the answer line of a point `places` gave `key`, and a line feed, to `out`.
    package func write(_ key: Int32, at location: Coordinate, places: ReverseBatchPlaces, into out: inout SplicedOutput) {
        lines.write(key, at: location, places: places, into: &out)
    }
}

private struct Lines {
    private var epoch = -1
    /// Per key: where its line starts (nil: not written yet), where the location goes (the
    /// first half's length), and its length with the line feed (the location left out).
    private var starts: [UnsafePointer<UInt8>?] = [], cuts: [Int32] = [], ends: [Int32] = []
    /// The blocks the lines are in, the last one being filled: none is freed or moved before
    /// `free` (a new epoch starts a new block and leaves the old ones be).
    private var blocks: [UnsafeMutableBufferPointer<UInt8>] = []
    private var used = 0
    private static let blockSize = 1 << 20

    mutating func write(_ key: Int32, at location: Coordinate, places: ReverseBatchPlaces, into out: inout SplicedOutput) {
        if places.epoch != epoch {
            epoch = places.epoch
            starts = []; cuts = []; ends = []
            used = blocks.last?.count ?? 0
        }
        let k = Int(key)
        if k >= starts.count {
            let more = k + 1 - starts.count
            starts.append(contentsOf: repeatElement(nil, count: more))
            cuts.append(contentsOf: repeatElement(0, count: more))
            ends.append(contentsOf: repeatElement(0, count: more))
        }
        if starts[k] == nil { add(k, places.takeAddress(key)) }
        let start = starts[k]!, cut = Int(cuts[k]), end = Int(ends[k])
        out.borrow(start, count: cut)
        AMapShape.writeLocation(location, into: &out.bytes)
        out.borrow(start + cut, count: end - cut)
    }

    func free() {
        for b in blocks { b.deallocate() }
    }

    /// The location regeo writes for the placeholder point, and the key before it (the only
    /// location in an answer without POIs or roads).
    private static let marker = Array(#""location":"0.000000,0.000000""#.utf8)
    private static let placeholder = Coordinate(longitude: 0, latitude: 0)

    private mutating func add(_ k: Int, _ a: (address: Address, formatted: String)) {
        var line: [UInt8] = []
        AMapShape.writeRegeo(ReverseGeocode(location: Self.placeholder, address: a.address, formattedAddress: a.formatted, pois: []),
                             all: true, into: &line)
        let m = Self.marker
        // In place, comparing the first two bytes before calling `memcmp`: a call at each of
        // the line's hundreds of quotes was a tenth of a batch's work of making lines.
        let found = line.withUnsafeBufferPointer { line -> Int? in
            m.withUnsafeBufferPointer { m -> Int? in
                guard line.count >= m.count else { return nil }
                var at = 0
                while at <= line.count - m.count {
                    if line[at] == m[0], line[at + 1] == m[1], memcmp(line.baseAddress! + at, m.baseAddress!, m.count) == 0 { return at }
                    at += 1
                }
                return nil
            }
        }
        guard let at = found else { preconditionFailure("a regeo answer without its location") }
        let cut = at + m.count - 18  // after `"location":"`, before the 17 bytes of the placeholder and its quote
        // The line without the placeholder, with its line feed.
        let size = line.count - 17 + 1
        if blocks.isEmpty || used + size > blocks.last!.count {
            blocks.append(UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(Self.blockSize, size)))
            used = 0
        }
        let start = blocks.last!.baseAddress! + used
        line.withUnsafeBufferPointer { line in
            start.initialize(from: line.baseAddress!, count: cut)
            (start + cut).initialize(from: line.baseAddress! + cut + 17, count: line.count - cut - 17)
        }
        start[size - 1] = 0x0A
        used += size
        starts[k] = UnsafePointer(start)
        cuts[k] = Int32(cut)
        ends[k] = Int32(size)
    }
}
