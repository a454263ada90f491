/// Functional zones (开发区, 新区, 管理区 …) of the statistics list: not regions of the tree, but
/// written in addresses (长春经开区…). Each is placed in the statutory region holding most of
/// its towns, at an approximate centre (`functional_zones.tsv`, made by
/// `Scripts/build_functional_zones.py`), so geocoding answers it as AMap does, level 开发区,
/// and reverse geocoding never answers one.
package enum FunctionalZones {
    package struct Zone: Sendable, Hashable {
        package var code: Int64
        package var name: String
        /// The statutory district (or city) that holds it.
        package var region: Int64
        /// Approximate centre, GCJ-02.
        package var center: Coordinate?
    }


    /// Every form of a zone's name people write (full, without the province, 高新区, 经开区).
    package static let byName: [String: [Zone]] = {
        var names: [String: [Zone]] = [:]
        // Split as bytes, as FormerNames is: as Characters it cost more than the rest.
        for line in PackageResources.functional_zones_tsv.split(separator: UInt8(ascii: "\n")).dropFirst() {
            let f = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard f.count >= 6, let code = Int64(f[0]), let region = Int64(f[3]) else { continue }
            let center = Double(f[4]).flatMap { lng in Double(f[5]).map { Coordinate(longitude: lng, latitude: $0) } }
            let zone = Zone(code: code, name: f[1], region: region, center: center)
            for name in f[2].split(separator: "|") { names[String(name), default: []].append(zone) }
        }
        return names
    }()
}
