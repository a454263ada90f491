import Foundation

extension MultiPolygon {
    /// Area in square metres (holes subtracted), each polygon projected equirectangularly at
    /// its own mid-latitude: within about 1 % for a district. Sizes towns for reverse
    /// geocoding (see `TownSet`), where a few percent do not matter.
    public var area: Double {
        var total = 0.0
        for polygon in polygons {
            guard let outer = polygon.rings.first, !outer.isEmpty else { continue }
            var minLat = Double.infinity, maxLat = -Double.infinity
            for c in outer { minLat = min(minLat, c.latitude); maxLat = max(maxLat, c.latitude) }
            let kx = 111_320.0 * cos((minLat + maxLat) / 2 * .pi / 180), ky = 110_574.0
            for (i, ring) in polygon.rings.enumerated() {
                var twice = 0.0
                for j in ring.indices.dropFirst() {
                    let a = ring[j - 1], b = ring[j]
                    twice += a.longitude * b.latitude - b.longitude * a.latitude
                }
                total += (i == 0 ? 1 : -1) * abs(twice) / 2 * kx * ky
            }
        }
        return max(total, 0)
    }
}
