import Foundation

extension Coordinate {
    /// Parses `"lng,lat"` (AMap's order; spaces allowed, a Chinese comma too), rejecting
    /// non-numbers, NaN, infinities, out-of-range values and pairs that look swapped.
    public init(parsing text: String) throws(GazetteerError) {
        let parts = text.replacingOccurrences(of: "，", with: ",").split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2,
              let lng = Double(parts[0].trimmingCharacters(in: .whitespaces)),
              let lat = Double(parts[1].trimmingCharacters(in: .whitespaces))
        else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            throw .invalidArgument(name: "location", reason: "'\(shown)' is not LNG,LAT (two decimal numbers, longitude first, e.g. 116.397477,39.908692)")
        }
        let c = Coordinate(longitude: lng, latitude: lat)
        guard c.isValid else { throw .invalidArgument(name: "location", reason: Repository.describeInvalid(c)) }
        self = c
    }
}
