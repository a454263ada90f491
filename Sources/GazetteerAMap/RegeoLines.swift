import Foundation
import Gazetteer
import GazetteerSupport

/// The `reverse --batch` JSON line of each address key of a batch without POIs
/// (`Repository.placeBatch`), written once without the point's location
/// (`AMapShape.writeRegeoLeavingLocation`): every later point with that key names the two
/// halves around its location (`SplicedOutput.borrow`), and only the location is written per
/// point. The bytes are the writer's own, so they cannot drift from the lone answer's.
///
/// The lines are kept in a `SharedRegeoLines`, with the batch's other threads', until it is
/// dropped: a block's output names them until it is written. Used by one thread at a time,
/// beside its `ReverseBatchPlaces`.
package final class RegeoLines {
    /// All of it in one value, held by a constant pointer: each access to a class's `var` is
    /// checked for exclusivity at run time, some 90 instructions a point.
    private let lines: UnsafeMutablePointer<Lines>

    /// - Parameter shared: the lines of the batch's other threads, made once for them all
    ///   (nil: this thread's own).
    package init(sharing shared: SharedRegeoLines? = nil) {
        lines = .allocate(capacity: 1)
        lines.initialize(to: Lines(shared: shared ?? SharedRegeoLines()))
    }

    deinit {
        lines.deinitialize(count: 1)
        lines.deallocate()
    }

    /// Adds the answer line of a point `places` gave `key`, and a line feed, to `out`.
    package func write(_ key: Int32, at location: Coordinate, places: ReverseBatchPlaces, into out: inout SplicedOutput) {
        lines.pointee.write(key, at: location, places: places, into: &out)
    }
}

/// A line as `RegeoLines` keeps it: where it starts, where the location goes (the first
/// half's length) and its length with the line feed (the location left out).
private struct Line {
    var start: UnsafePointer<UInt8>
    var cut: Int32
    var end: Int32
}

/// The lines of every thread of a batch by address (`ReverseBatchPlaces.AddressID`): each
/// thread's keys are its own numbers, so without this both threads made most lines, a third of
/// the lines of a batch inside China. Only a thread's first sight of a key takes the lock; the
/// lines are made outside it. They are kept in blocks that never move or change until this is
/// dropped, so every thread's output may name them.
package final class SharedRegeoLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [ReverseBatchPlaces.AddressID: Line] = [:]
    private var blocks: [UnsafeMutableBufferPointer<UInt8>] = []
    private var used = 0
    private static let blockSize = 1 << 20

    package init() {
        lines.reserveCapacity(8_192)
    }

    deinit {
        for b in blocks { b.deallocate() }
    }

    /// How many lines are kept by address.
    package var count: Int { lock.withBriefLock { lines.count } }

    /// The line kept for `id` (nil: none yet).
    fileprivate func line(_ id: ReverseBatchPlaces.AddressID) -> Line? {
        lock.withBriefLock { lines[id] }
    }

    /// Keeps `bytes` as a line cut at `cut`, under `id` when given (nil: one thread's own);
    /// when another thread kept the same line meanwhile, that one (the same bytes).
    fileprivate func keep(_ bytes: UnsafeBufferPointer<UInt8>, cut: Int, id: ReverseBatchPlaces.AddressID?) -> Line {
        lock.withBriefLock {
            if let id, let line = lines[id] { return line }
            if blocks.isEmpty || used + bytes.count > blocks.last!.count {
                blocks.append(UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(Self.blockSize, bytes.count)))
                used = 0
            }
            let start = blocks.last!.baseAddress! + used
            start.initialize(from: bytes.baseAddress!, count: bytes.count)
            used += bytes.count
            let line = Line(start: UnsafePointer(start), cut: Int32(cut), end: Int32(bytes.count))
            if let id { lines[id] = line }
            return line
        }
    }
}

private struct Lines {
    let shared: SharedRegeoLines
    private var epoch = -1
    /// Per key of this thread: its line (nil: not looked up yet).
    private var keyed: [Line?] = []
    /// Where a line is made before it is kept, its capacity kept from line to line.
    private var scratch: [UInt8] = []

    init(shared: SharedRegeoLines) { self.shared = shared }

    mutating func write(_ key: Int32, at location: Coordinate, places: ReverseBatchPlaces, into out: inout SplicedOutput) {
        if places.epoch != epoch {
            epoch = places.epoch
            keyed = []
        }
        let k = Int(key)
        if k >= keyed.count { keyed.append(contentsOf: repeatElement(nil, count: k + 1 - keyed.count)) }
        let line: Line
        if let known = keyed[k] { line = known } else { line = add(k, places.takeAddress(key)) }
        let cut = Int(line.cut)
        out.borrow(line.start, count: cut)
        AMapShape.writeLocation(location, into: &out.bytes)
        out.borrow(line.start + cut, count: Int(line.end) - cut)
    }

    /// The location regeo writes for the point (left out of the line).
    private static let placeholder = Coordinate(longitude: 0, latitude: 0)

    private mutating func add(_ k: Int, _ a: (address: Address, formatted: String, id: ReverseBatchPlaces.AddressID?)) -> Line {
        if let id = a.id, let line = shared.line(id) {
            keyed[k] = line
            return line
        }
        scratch.removeAll(keepingCapacity: true)
        let cut = AMapShape.writeRegeoLeavingLocation(
            ReverseGeocode(location: Self.placeholder, address: a.address, formattedAddress: a.formatted, pois: []), into: &scratch)
        scratch.append(0x0A)
        let line = scratch.withUnsafeBufferPointer { shared.keep($0, cut: cut, id: a.id) }
        keyed[k] = line
        return line
    }
}
