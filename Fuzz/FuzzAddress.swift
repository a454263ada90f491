// Fuzz target: address normalisation and full geocoding against the fixture database.
// `nil` and `invalidArgument` are answers; a crash, a hang or any other error is a bug.
import Foundation

private let city: [String?] = [nil, "杭州", "110101"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAddress(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = fuzzText(data, size)
    let normalized = AddressParser.normalize(text)
    for c in normalized where c.isWhitespace || c == "," || c == "，" {
        fuzzFailure("normalize kept \(c.debugDescription)", input: text)
    }
    for (i, scope) in city.enumerated() {
        let system: CoordinateSystem = [.gcj02, .wgs84, .bd09][i]
        do {
            if let g = try FuzzFixture.repository.geocode(text, city: scope, system: system) {
                if let l = g.location, !l.isValid { fuzzFailure("invalid location \(l)", input: text) }
            }
        } catch {
            if case .invalidArgument = error { continue }
            fuzzFailure("geocode (city \(scope ?? "nil")) threw \(error)", input: text)
        }
    }
    return 0
}
