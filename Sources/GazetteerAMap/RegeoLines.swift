import Foundation
import Gazetteer

/// The `reverse --batch` JSON line of each address key of a batch without POIs
/// (`Repository.placeBatch`), written once by `AMapShape.writeRegeo` and cut where the point's
/// location goes: every later point with that key copies the two halves around its location.
/// The bytes are the writer's own, so they cannot drift from the lone answer's.
///
/// Used by one thread at a time, beside its `ReverseBatchPlaces`.
package final class RegeoLines {
    /// All of it in one value, so that a point's write is one access to this class's storage
    /// (each access to a stored property of a class is checked for exclusivity at run time).
    private var lines = Lines()

    package init() {}

    /// Writes the answer line of a point `places` gave `key`, and a line feed.
    package func write(_ key: Int32, at location: Coordinate, places: ReverseBatchPlaces, into out: inout [UInt8]) {
        lines.write(key, at: location, places: places, into: &out)
    }
}

private struct Lines {
    private var epoch = -1
    /// Every line written so far, end to end, each without its location and line feed.
    private var bytes: [UInt8] = []
    /// Per key: where its line starts in `bytes` (-1: not written yet), where the location
    /// goes, and where it ends.
    private var starts: [Int] = [], cuts: [Int] = [], ends: [Int] = []

    mutating func write(_ key: Int32, at location: Coordinate, places: ReverseBatchPlaces, into out: inout [UInt8]) {
        if places.epoch != epoch {
            epoch = places.epoch
            bytes = []; starts = []; cuts = []; ends = []
        }
        let k = Int(key)
        if k >= starts.count {
            let more = k + 1 - starts.count
            starts.append(contentsOf: repeatElement(-1, count: more))
            cuts.append(contentsOf: repeatElement(0, count: more))
            ends.append(contentsOf: repeatElement(0, count: more))
        }
        if starts[k] < 0 { add(k, places.takeAddress(key)) }
        let (start, cut, end) = (starts[k], cuts[k], ends[k])
        bytes.withUnsafeBufferPointer { b in
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[start..<cut]))
            AMapShape.writeLocation(location, into: &out)
            out.append(contentsOf: UnsafeBufferPointer(rebasing: b[cut..<end]))
        }
        out.append(0x0A)
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
        starts[k] = bytes.count
        bytes.append(contentsOf: line[..<cut])
        cuts[k] = bytes.count
        bytes.append(contentsOf: line[(cut + 17)...])
        ends[k] = bytes.count
    }
}
