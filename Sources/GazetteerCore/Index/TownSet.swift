import Foundation

/// The towns of one district (or city without districts) as reverse geocoding sees them: the
/// ones with a known, approximate centre, how many there are in all, and how far from a
/// centre a point may be and still be given that centre's town.
///
/// Most towns have no known centre, so the nearest known centre is often a neighbour's: a
/// point is given a town only where that is likely right. An unknown town's centre could lie
/// anywhere in the district, so the reach shrinks as the unknown towns crowd it: half the
/// radius of the area each unknown town would have. And the nearest centre must be clearly
/// nearer than the next (≤ 0.7 of its distance), away from the line between two towns.
/// `Scripts/town_naming_check.py` measures the rule (BENCHMARKS.md, "Town names").
package struct TownSet: Sendable {
    package var centres: [RegionCache.TownCentre]
    /// Farthest a centre may be from a point and still name its town, in metres.
    package var reach: Double
    /// Every town of the district has a centre: the nearest one is the best guess anywhere
    /// within `maximumReach`, and no margin is asked for.
    package var complete: Bool

    /// Nothing is named farther than this from a centre, whatever the district's size.
    package static let maximumReach = 5_000.0
    /// The share of an unknown town's radius within which a known centre still names its town.
    package static let reachFactor = 0.5
    /// How much nearer than the second-nearest centre the nearest must be.
    package static let margin = 0.7

    /// - Parameters:
    ///   - area: the district's area in square metres; nil when it has no boundary.
    ///   - count: how many towns the district has, with or without a centre.
    package init(centres: [RegionCache.TownCentre], count: Int, area: Double?) {
        self.centres = centres
        complete = centres.count >= count
        if complete {
            reach = Self.maximumReach
        } else if let area, area > 0 {
            let unknown = Double(count - centres.count)
            reach = min(Self.maximumReach, Self.reachFactor * (area / (.pi * unknown)).squareRoot())
        } else {
            reach = 0
        }
    }

    /// The code of the town to name for `p`, or nil when none is likely enough.
    package func town(at p: Coordinate) -> Int64? {
        townIndex(at: p).map { centres[$0].code }
    }

    /// The index in `centres` of the town `town(at:)` names: a batch keeps what it wrote
    /// per town by this index, without a look-up by code.
    package func townIndex(at p: Coordinate) -> Int? {
        centres.withUnsafeBufferPointer { Self.townIndex(at: p, centres: $0, reach: reach, complete: complete) }
    }

    /// `townIndex(at:)` of a set with these centres, reach and completeness: a batch keeps
    /// every district's centres in one flat table, as reading a set out of an array retained
    /// and released its centres at every point.
    package static func townIndex(at p: Coordinate, centres: UnsafeBufferPointer<RegionCache.TownCentre>,
                                  reach: Double, complete: Bool) -> Int? {
        guard reach > 0 else { return nil }
        // Equirectangular distance ranks as the great circle does at town scale, without trigonometry per town.
        let k = cos(p.latitude * .pi / 180)
        var first = (d2: Double.infinity, index: -1), second = Double.infinity
        for i in centres.indices {
            let t = centres[i].center
            let x = (t.longitude - p.longitude) * k, y = t.latitude - p.latitude
            let d2 = x * x + y * y
            if d2 < first.d2 { second = first.d2; first = (d2, i) } else if d2 < second { second = d2 }
        }
        guard first.index >= 0 else { return nil }
        if !complete && second.isFinite && first.d2 > Self.margin * Self.margin * second { return nil }
        // The great circle only where the flat distance is within a tenth of the reach: within
        // 50 km and 60° of the equator the two differ by under a percent.
        let flat = first.d2.squareRoot() * (.pi / 180) * Coordinate.earthRadius
        if abs(p.latitude) < 60 && flat < 50_000 {
            if flat < 0.9 * reach { return first.index }
            if flat > 1.1 * reach { return nil }
        }
        guard centres[first.index].center.distance(to: p) <= reach else { return nil }
        return first.index
    }
}
