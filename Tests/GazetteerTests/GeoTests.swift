import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

// MARK: - Helpers

/// Deterministic generator so randomised tests are reproducible.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

private func coord(_ lng: Double, _ lat: Double) -> Coordinate {
    Coordinate(longitude: lng, latitude: lat)
}

/// The point `distance` metres from `c` along `bearing` degrees on the library's sphere.
private func destination(_ c: Coordinate, bearing: Double, distance: Double) -> Coordinate {
    let r = Double.pi / 180
    let delta = distance / Coordinate.earthRadius
    let phi1 = c.latitude * r, lambda1 = c.longitude * r, theta = bearing * r
    let phi2 = asin(sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta))
    let lambda2 = lambda1 + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
    var lng = lambda2 / r
    if lng > 180 { lng -= 360 }
    if lng < -180 { lng += 360 }
    return coord(lng, phi2 / r)
}

/// Textbook even-odd test over every edge: the oracle the banded index must agree with.
private func naiveContains(_ mp: MultiPolygon, _ p: Coordinate) -> Bool {
    for polygon in mp.polygons {
        var inside = false
        for ring in polygon.rings {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.latitude > p.latitude) != (b.latitude > p.latitude),
                   p.longitude < (b.longitude - a.longitude) * (p.latitude - a.latitude) / (b.latitude - a.latitude) + a.longitude {
                    inside.toggle()
                }
                j = i
            }
        }
        if inside { return true }
    }
    return false
}

private func square(_ minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double) -> [Coordinate] {
    [coord(minX, minY), coord(maxX, minY), coord(maxX, maxY), coord(minX, maxY), coord(minX, minY)]
}

/// A star-shaped ring with `n` vertices and jagged radius: concave almost everywhere.
private func jaggedRing(center: Coordinate, n: Int, rng: inout SplitMix64) -> [Coordinate] {
    var ring: [Coordinate] = []
    for k in 0..<n {
        let angle = Double(k) / Double(n) * 2 * Double.pi
        let radius = 0.2 + Double.random(in: 0..<0.3, using: &rng) * (k % 2 == 0 ? 1 : 0.3)
        ring.append(coord(center.longitude + radius * cos(angle), center.latitude + radius * sin(angle)))
    }
    ring.append(ring[0])
    return ring
}

// MARK: - Reference values

/// One reference point: the same input coordinate fed to each of the four transforms.
private struct Reference: Sendable {
    let name: String
    let input: (Double, Double)
    let wgsToGCJ: (Double, Double)
    let gcjToWGS: (Double, Double)
    let gcjToBD: (Double, Double)
    let bdToGCJ: (Double, Double)
    init(_ name: String, _ input: (Double, Double), wgsToGCJ: (Double, Double), gcjToWGS: (Double, Double),
         gcjToBD: (Double, Double), bdToGCJ: (Double, Double)) {
        self.name = name; self.input = input; self.wgsToGCJ = wgsToGCJ; self.gcjToWGS = gcjToWGS
        self.gcjToBD = gcjToBD; self.bdToGCJ = bdToGCJ
    }
}

/// Produced with PyPI `coordtransform` 0.2.1 (module coordTransform; Krasovsky a = 6378245):
/// wgsToGCJ = wgs84_to_gcj02, gcjToBD = gcj02_to_bd09, bdToGCJ = bd09_to_gcj02 (its one-step
/// approximate inverse). gcjToWGS = coordtransform's wgs84_to_gcj02 inverted by 50 fixed-point
/// iterations (exact to ~1e-14°). Cross-checked with PyPI `eviltransform` 0.1.1 (wgs2gcj,
/// gcj2wgs_exact, gcj2bd, bd2gcj): all agree within 1.1e-6°. Taipei and Hong Kong are inside
/// both packages' rectangle and inside `ChinaBorder`.
private let references: [Reference] = [
    .init("Beijing", (116.397428, 39.90923), wgsToGCJ: (116.40367162595768, 39.91063350638631), gcjToWGS: (116.39118683604012, 39.90782876399083), gcjToBD: (116.40380056450005, 39.9155730161122), bdToGCJ: (116.39103764046327, 39.90292057617438)),
    .init("Shanghai", (121.473701, 31.230416), wgsToGCJ: (121.47822405739267, 31.22847374224698), gcjToWGS: (121.4691632650925, 31.232345234299604), gcjToBD: (121.48023840790201, 31.236350800982365), bdToGCJ: (121.46719613101034, 31.22435801798287)),
    .init("Guangzhou", (113.264385, 23.129112), wgsToGCJ: (113.26971458288735, 23.126435336538538), gcjToWGS: (113.25905824689244, 23.131789980189122), gcjToBD: (113.27081796617938, 23.135340412528762), bdToGCJ: (113.25793116796865, 23.122979416443872)),
    .init("Shenzhen", (114.057868, 22.543099), wgsToGCJ: (114.06298196110272, 22.540381757783795), gcjToWGS: (114.05276037845556, 22.545825559693863), gcjToBD: (114.06442002409635, 22.548755955124918), bdToGCJ: (114.05132545795821, 22.537410410143043)),
    .init("Chengdu", (104.065735, 30.659462), wgsToGCJ: (104.0682424639204, 30.657041178599883), gcjToWGS: (104.06323226976522, 30.661885503020773), gcjToBD: (104.07221517048558, 30.66553129944504), bdToGCJ: (104.05927769229982, 30.653293313024147)),
    .init("Urumqi", (87.617733, 43.792818), wgsToGCJ: (87.62058226041898, 43.79404257315041), gcjToWGS: (87.61488664164459, 43.79159498028323), gcjToBD: (87.62414772921913, 43.798972175055994), bdToGCJ: (87.61135367745342, 43.78660502455104)),
    .init("Kashgar", (75.989755, 39.4704), wgsToGCJ: (75.99270984163799, 39.470626891188154), gcjToWGS: (75.98680983876258, 39.470181963749695), gcjToBD: (75.99624493060554, 39.47639848310215), bdToGCJ: (75.98330888712222, 39.464327878602106)),
    .init("Lhasa", (91.132212, 29.660361), wgsToGCJ: (91.13375530683676, 29.657640565917127), gcjToWGS: (91.13066645973566, 29.663078888624653), gcjToBD: (91.13881033158358, 29.66611543863634), bdToGCJ: (91.1256338018798, 29.654557149832765)),
    .init("Harbin", (126.642464, 45.756967), wgsToGCJ: (126.64843401023796, 45.758918130663396), gcjToWGS: (126.63650773975118, 45.75502436753707), gcjToBD: (126.64906493177232, 45.76274263228727), bdToGCJ: (126.63590304664103, 45.751076929708454)),
    .init("Sanya", (109.511909, 18.252847), wgsToGCJ: (109.51599327140339, 18.251141748703045), gcjToWGS: (109.50781292552185, 18.254540620813835), gcjToBD: (109.51846574504881, 18.258582340587314), bdToGCJ: (109.50534951764439, 18.247161275308315)),
    .init("Hangzhou", (120.15507, 30.274084), wgsToGCJ: (120.15976456443694, 30.271755274898663), gcjToWGS: (120.15036184391018, 30.276404303131653), gcjToBD: (120.16161278003412, 30.27999420434418), bdToGCJ: (120.14855749604524, 30.268052175752107)),
    .init("Xi'an", (108.948024, 34.263161), wgsToGCJ: (108.9526966812793, 34.26158570426416), gcjToWGS: (108.9433648466798, 34.26474454866568), gcjToBD: (108.95443762206492, 34.26942467496359), bdToGCJ: (108.9415794909893, 34.256974657619224)),
    .init("Kunming", (102.712251, 25.040609), wgsToGCJ: (102.7136925325774, 25.03763628925363), gcjToWGS: (102.71081213814742, 25.04358329008387), gcjToBD: (102.71866484795655, 25.046887943661943), bdToGCJ: (102.70581960855814, 25.034386011362102)),
    .init("Hohhot", (111.670801, 40.818311), wgsToGCJ: (111.67758080453235, 40.81964076475458), gcjToWGS: (111.66403935257239, 40.81699520169966), gcjToBD: (111.6774197630564, 40.82403376872376), bdToGCJ: (111.66417036685905, 40.81263340853727)),
    .init("Mohe", (122.536256, 52.972074), wgsToGCJ: (122.54329313509803, 52.973592438502486), gcjToWGS: (122.52919183177609, 52.97053862258055), gcjToBD: (122.54265865840173, 52.97831949417348), bdToGCJ: (122.52988238213872, 52.96574804897621)),
    .init("Hong Kong", (114.169361, 22.319304), wgsToGCJ: (114.17432817237541, 22.31655487232441), gcjToWGS: (114.1643801694466, 22.322044346570728), gcjToBD: (114.17591711934946, 22.325013134172213), bdToGCJ: (114.16282599457257, 22.31351890986105)),
    .init("Macau", (113.54909, 22.198951), wgsToGCJ: (113.55417955048497, 22.196000497279805), gcjToWGS: (113.54398673135933, 22.20189146394539), gcjToBD: (113.55558575046801, 22.204967014182042), bdToGCJ: (113.5426222696483, 22.192823515893647)),
    .init("Taipei", (121.565418, 25.032969), wgsToGCJ: (121.56919109232427, 25.03003496010015), gcjToWGS: (121.56163778332463, 25.03589692470069), gcjToBD: (121.57183359925227, 25.03931658586017), bdToGCJ: (121.55899995033336, 25.026606347403526)),
    .init("Xisha", (112.338695, 16.831839), wgsToGCJ: (112.34360717447699, 16.830208289710043), gcjToWGS: (112.33379187598783, 16.833478117829763), gcjToBD: (112.34518651283221, 16.838029992123825), bdToGCJ: (112.33221622001139, 16.82556550801661)),
    .init("Dongxing", (107.97017, 21.541172), wgsToGCJ: (107.97400195346191, 21.538501630709323), gcjToWGS: (107.96634747499796, 21.543853091466097), gcjToBD: (107.97666822194225, 21.54717464316832), bdToGCJ: (107.96364407155683, 21.53527641663617)),
]

// MARK: - Coordinate transforms

@Suite struct CoordinateTransformTests {
    @Test func forwardTransformsMatchReferencePackages() {
        for r in references {
            let c = coord(r.input.0, r.input.1)
            let g = CoordinateTransform.wgs84ToGCJ02(c)
            #expect(abs(g.longitude - r.wgsToGCJ.0) < 1e-6 && abs(g.latitude - r.wgsToGCJ.1) < 1e-6, "wgs→gcj \(r.name): \(g)")
            let b = CoordinateTransform.gcj02ToBD09(c)
            #expect(abs(b.longitude - r.gcjToBD.0) < 1e-6 && abs(b.latitude - r.gcjToBD.1) < 1e-6, "gcj→bd \(r.name): \(b)")
        }
    }

    @Test func inverseTransformsMatchReferences() {
        for r in references {
            let c = coord(r.input.0, r.input.1)
            let w = CoordinateTransform.gcj02ToWGS84(c)
            #expect(abs(w.longitude - r.gcjToWGS.0) < 1e-6 && abs(w.latitude - r.gcjToWGS.1) < 1e-6, "gcj→wgs \(r.name): \(w)")
            // Our BD inverse is exact; the packages' one-step inverse is off by up to 2e-6°.
            let g = CoordinateTransform.bd09ToGCJ02(c)
            #expect(abs(g.longitude - r.bdToGCJ.0) < 3e-6 && abs(g.latitude - r.bdToGCJ.1) < 3e-6, "bd→gcj \(r.name): \(g)")
            let back = CoordinateTransform.gcj02ToBD09(g)
            #expect(back.distance(to: c) < 0.001, "bd round trip \(r.name)")
        }
    }

    @Test func gcjInverseRoundTripsAcrossChina() {
        var worst = 0.0
        var tested = 0
        for lng in stride(from: 74.0, through: 134.0, by: 1.5) {
            for lat in stride(from: 18.0, through: 53.0, by: 1.25) {
                let w0 = coord(lng, lat)
                let g = CoordinateTransform.wgs84ToGCJ02(w0)
                // Within a few hundred metres of the (generous) outline the shift can carry a
                // point across it; there the transform is discontinuous by design.
                guard CoordinateTransform.isInChina(w0), CoordinateTransform.isInChina(g) else { continue }
                tested += 1
                #expect(g.distance(to: w0) > 10, "GCJ-02 should shift \(w0)")
                let w1 = CoordinateTransform.gcj02ToWGS84(g)
                worst = max(worst, w1.distance(to: w0))
            }
        }
        #expect(tested > 300)
        #expect(worst < 0.01, "worst gcj→wgs round-trip error \(worst) m")
    }

    @Test(arguments: [
        ("Seoul", 126.978, 37.566), ("Tokyo", 139.692, 35.690), ("Fukuoka (Kyushu)", 130.402, 33.590),
        ("Busan", 129.075, 35.180), ("Pyongyang", 125.754, 39.034), ("Hanoi", 105.85, 21.03),
        ("Ulaanbaatar", 106.9, 47.9), ("New Delhi", 77.209, 28.614), ("Kathmandu", 85.324, 27.717),
        ("Vladivostok", 131.886, 43.116), ("Manila", 120.984, 14.600), ("Almaty", 76.886, 43.238),
        ("London", -0.128, 51.507), ("Sydney", 151.209, -33.869),
    ])
    func foreignPointsAreNotShifted(name: String, lng: Double, lat: Double) {
        let c = coord(lng, lat)
        #expect(!CoordinateTransform.isInChina(c), "\(name)")
        #expect(c.converted(from: .wgs84, to: .gcj02) == c, "\(name)")
        #expect(c.converted(from: .gcj02, to: .wgs84) == c, "\(name)")
    }

    @Test(arguments: [
        ("Beijing", 116.397, 39.909), ("Urumqi", 87.617, 43.793), ("Harbin", 126.642, 45.757),
        ("Lhasa", 91.132, 29.660), ("Sanya", 109.512, 18.253), ("Kashgar", 75.990, 39.470),
        ("Mohe", 122.536, 52.972), ("Dongxing (Vietnam border)", 107.970, 21.541),
        ("Ruili (Myanmar border)", 97.851, 24.013), ("Hunchun", 130.366, 42.862),
        ("Hong Kong", 114.169, 22.319), ("Macau", 113.549, 22.199), ("Taipei", 121.565, 25.033),
        ("Xisha", 112.339, 16.832),
    ])
    func chinesePointsAreShifted(name: String, lng: Double, lat: Double) {
        let c = coord(lng, lat)
        #expect(CoordinateTransform.isInChina(c), "\(name)")
        let g = c.converted(from: .wgs84, to: .gcj02)
        #expect(g.distance(to: c) > 100 && g.distance(to: c) < 1000, "\(name) shifted by \(g.distance(to: c)) m")
    }

    @Test func conversionsCompose() {
        let c = coord(120.15507, 30.274084)
        for system in CoordinateSystem.allCases {
            #expect(c.converted(from: system, to: system) == c)
        }
        let viaGCJ = CoordinateTransform.gcj02ToBD09(CoordinateTransform.wgs84ToGCJ02(c))
        #expect(c.converted(from: .wgs84, to: .bd09) == viaGCJ)
        for (from, to) in [(CoordinateSystem.wgs84, CoordinateSystem.bd09), (.bd09, .gcj02), (.gcj02, .wgs84)] {
            let back = c.converted(from: from, to: to).converted(from: to, to: from)
            #expect(back.distance(to: c) < 0.01, "\(from) → \(to) → \(from)")
        }
        #expect(CoordinateSystem(rawValue: "bd09") == .bd09)
    }

    @Test(.timeLimit(.minutes(1))) func nonFiniteInputDoesNotHang() {
        let nan = coord(.nan, 30)
        #expect(!CoordinateTransform.isInChina(nan))
        #expect(CoordinateTransform.gcj02ToWGS84(nan).longitude.isNaN)
        #expect(!CoordinateTransform.bd09ToGCJ02(coord(.infinity, 30)).isValid)
    }
}

// MARK: - Distance and boxes

@Suite struct DistanceAndBoxTests {
    @Test func haversineMatchesReference() {
        let beijing = coord(116.407526, 39.904030), shanghai = coord(121.473701, 31.230416)
        let d = beijing.distance(to: shanghai)
        // Python haversine with R = 6371008.8 gives 1_067_288.34 m.
        #expect(abs(d - 1_067_288.34) < 1)
        #expect((1_067_000...1_068_000).contains(d))
        #expect(abs(coord(0, 0).distance(to: coord(0, 1)) - 111_195.080) < 0.01)
        #expect(beijing.distance(to: beijing) == 0)
        #expect(abs(coord(0, 90).distance(to: coord(0, -90)) - Double.pi * Coordinate.earthRadius) < 1e-3)
    }

    @Test func validity() {
        #expect(coord(180, -90).isValid)
        #expect(!coord(180.0001, 0).isValid)
        #expect(!coord(0, 90.5).isValid)
        #expect(!coord(.nan, 0).isValid)
        #expect(!coord(0, .infinity).isValid)
    }

    @Test(arguments: [
        (116.4, 39.9, 1_000.0), (116.4, 39.9, 50_000.0), (0.0, 0.0, 10_000.0), (20.0, 80.0, 200_000.0),
        (179.95, 10.0, 20_000.0), (-179.99, -30.0, 5_000.0), (10.0, 89.99, 5_000.0), (0.0, -89.5, 100_000.0),
        (100.0, 45.0, 0.0),
    ])
    func aroundContainsTheCircle(lng: Double, lat: Double, radius: Double) {
        let center = coord(lng, lat)
        let box = BoundingBox.around(center, radius: radius)
        #expect(box.contains(center))
        for bearing in stride(from: 0.0, to: 360.0, by: 7.5) {
            let p = destination(center, bearing: bearing, distance: radius)
            #expect(box.contains(p), "bearing \(bearing): \(p) not in \(box)")
        }
        #expect(box.minLatitude >= -90 && box.maxLatitude <= 90)
        #expect(box.minLongitude >= -180 && box.maxLongitude <= 180)
    }

    @Test func aroundIsTightAwayFromPolesAndClampsOtherwise() {
        let box = BoundingBox.around(coord(116.4, 39.9), radius: 1_000)
        let dLat = 1_000 / 111_195.080
        #expect(abs((box.maxLatitude - box.minLatitude) / 2 - dLat) < 1e-8)
        #expect(abs((box.maxLongitude - box.minLongitude) / 2 - dLat / cos(39.9 * .pi / 180)) < 1e-6)
        let polar = BoundingBox.around(coord(10, 89.99), radius: 5_000)
        #expect(polar.minLongitude == -180 && polar.maxLongitude == 180 && polar.maxLatitude == 90)
        let antimeridian = BoundingBox.around(coord(179.95, 10), radius: 20_000)
        #expect(antimeridian.minLongitude == -180 && antimeridian.maxLongitude == 180)
        #expect(BoundingBox.around(coord(1, 1), radius: .infinity) == BoundingBox.world)
        let zero = BoundingBox.around(coord(1, 1), radius: -5)
        #expect(zero.contains(coord(1, 1)) && !zero.contains(coord(1.0001, 1)))
    }

    @Test func unionAndContains() {
        let a = BoundingBox(minLongitude: 0, minLatitude: 0, maxLongitude: 1, maxLatitude: 1)
        let b = BoundingBox(minLongitude: 2, minLatitude: -1, maxLongitude: 3, maxLatitude: 0.5)
        let u = a.union(b)
        #expect(u == BoundingBox(minLongitude: 0, minLatitude: -1, maxLongitude: 3, maxLatitude: 1))
        #expect(a.contains(coord(1, 1)) && a.contains(coord(0, 0)) && !a.contains(coord(1.5, 0.5)))
        #expect(BoundingBox.empty.union(a) == a)
        #expect(!BoundingBox.empty.contains(coord(0, 0)))
        #expect(a.intersects(u) && !a.intersects(b))
        let json = try? JSONEncoder().encode(a)
        #expect(json.flatMap { try? JSONDecoder().decode(BoundingBox.self, from: $0) } == a)
    }
}

// MARK: - WKT

@Suite struct WKTTests {
    @Test func parsesPolygonWithHole() throws {
        let mp = try MultiPolygon(wkt: "POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))")
        #expect(mp.polygons.count == 1)
        #expect(mp.polygons[0].rings.count == 2)
        #expect(mp.polygons[0].rings[1][2] == coord(4, 4))
        #expect(mp.boundingBox == BoundingBox(minLongitude: 0, minLatitude: 0, maxLongitude: 10, maxLatitude: 10))
    }

    @Test func parsesMultiPolygonCaseAndWhitespaceInsensitively() throws {
        let text = "  multipolygon (\n\t((120.1 30.2,120.2 30.2 , 120.2 30.3,120.1 30.2)) ,\r\n"
            + "( (121 31, 122 31, 122 32, 121 32, 121 31), (121.2 31.2,121.4 31.2,121.4 31.4,121.2 31.2) ) ) "
        let mp = try MultiPolygon(wkt: text)
        #expect(mp.polygons.count == 2)
        #expect(mp.polygons[1].rings.count == 2)
        #expect(mp.polygons[0].rings[0][0] == coord(120.1, 30.2))
        #expect(try MultiPolygon(wkt: "Polygon((-1.5e1 -2,1 -2,1 +3,-15 -2))").polygons[0].rings[0][0] == coord(-15, -2))
    }

    @Test func wktRoundTrips() throws {
        let texts = [
            "POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,4 2,4 4,2 4,2 2))",
            "MULTIPOLYGON(((116.397428 39.90923,116.5 39.9,116.45 40.1,116.397428 39.90923)),((1 1,2 1,2 2,1 1)))",
        ]
        for text in texts {
            let mp = try MultiPolygon(wkt: text)
            #expect(mp.wkt == text)
            #expect(try MultiPolygon(wkt: mp.wkt) == mp)
        }
        #expect(MultiPolygon(polygons: []).wkt == "MULTIPOLYGON EMPTY")
        let awkward = MultiPolygon(polygons: [Polygon(rings: [[coord(0.1 + 0.2, 1e-7), coord(1, 0), coord(1, 1), coord(0.1 + 0.2, 1e-7)]])])
        #expect(try MultiPolygon(wkt: awkward.wkt) == awkward)
    }

    @Test(arguments: [
        ("", GeometryError.empty),
        ("   ", .empty),
        ("POLYGON EMPTY", .empty),
        ("multipolygon empty", .empty),
        ("POLYGN((0 0,1 0,1 1,0 0))", .syntax(offset: 0, expected: "POLYGON or MULTIPOLYGON")),
        ("POLYGON((0 0,1 0,1 x,0 0))", .syntax(offset: 19, expected: "a number")),
        ("POLYGON((0 0,1 0,1 1,0 0)", .syntax(offset: 25, expected: "',' before another ring or ')'")),
        ("POLYGON((0 0,1 0,1 1,0 0)) extra", .syntax(offset: 27, expected: "end of input")),
        ("POLYGON 0 0,1 0,1 1,0 0", .syntax(offset: 8, expected: "'(' to open a polygon")),
        ("POLYGON Z((0 0 0,1 0 0,1 1 0,0 0 0))", .syntax(offset: 8, expected: "'(' or EMPTY (only 2-D coordinates are supported)")),
        ("POLYGON((0 0 5,1 0,1 1,0 0))", .syntax(offset: 13, expected: "',' before another point or ')'")),
        ("多边形((0 0))", .syntax(offset: 0, expected: "POLYGON or MULTIPOLYGON")),
        ("POLYGON((0 0,1 0,1 1,0 0)),(中 0", .syntax(offset: 26, expected: "end of input")),
        ("POLYGON((0 0,1 0,1 1,0 1))", .ringNotClosed(ring: 0)),
        ("MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5),(5.1 5.1,5.2 5.1,5.2 5.2,5.1 5.2)))", .ringNotClosed(ring: 2)),
        ("POLYGON((0 0,1 1,0 0))", .tooFewPoints(ring: 0, count: 3)),
        ("POLYGON((0 0,10 0,10 10,0 0),(1 1,1 1))", .tooFewPoints(ring: 1, count: 2)),
        ("POLYGON((0 0,1 0,1 91,0 0))", .coordinateOutOfRange(Coordinate(longitude: 1, latitude: 91))),
        ("POLYGON((0 0,1e999 0,1 1,0 0))", .coordinateOutOfRange(Coordinate(longitude: .infinity, latitude: 0))),
        ("POLYGON((39.9 116.4,40 116.4,40 116.5,39.9 116.4))", .coordinateOutOfRange(Coordinate(longitude: 39.9, latitude: 116.4))),
    ])
    func rejectsBadWKT(text: String, expected: GeometryError) {
        #expect(throws: expected) { try MultiPolygon(wkt: text) }
    }

    @Test func errorDescriptionsAreActionable() {
        let swapped = GeometryError.coordinateOutOfRange(coord(39.9, 116.4)).description
        #expect(swapped.contains("swapped"))
        #expect(GeometryError.syntax(offset: 12, expected: "a number").description.contains("character 12"))
        #expect(GeometryError.ringNotClosed(ring: 0).description.contains("Ring 1"))
        #expect(GeometryError.tooFewPoints(ring: 2, count: 3).description.contains("at least 4"))
        #expect(!GeometryError.corrupt("x").description.isEmpty && !GeometryError.empty.description.isEmpty)
    }
}

// MARK: - Point in polygon

@Suite struct PointInPolygonTests {
    @Test func squareWithHole() throws {
        let mp = try MultiPolygon(wkt: "POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,4 2,4 4,2 4,2 2))")
        #expect(mp.contains(coord(1, 1)))
        #expect(mp.contains(coord(5, 5)))
        #expect(mp.contains(coord(3, 1)))
        #expect(!mp.contains(coord(3, 3)), "inside the hole")
        #expect(!mp.contains(coord(11, 5)))
        #expect(!mp.contains(coord(-0.001, 5)))
        #expect(!mp.contains(coord(5, 10.5)))
        #expect(!mp.contains(coord(.nan, 5)))
        // Rays through vertices: y equal to a vertex's y.
        #expect(mp.contains(coord(1, 2)) && mp.contains(coord(5, 4)) && !mp.contains(coord(-1, 2)))
    }

    @Test func multiPolygonCountsAnyPart() throws {
        let mp = try MultiPolygon(wkt: "MULTIPOLYGON(((0 0,1 0,1 1,0 1,0 0)),((5 5,6 5,6 6,5 6,5 5)),((0.2 0.2,0.8 0.2,0.8 0.8,0.2 0.2)))")
        #expect(mp.contains(coord(0.5, 0.1)))
        #expect(mp.contains(coord(5.5, 5.5)))
        #expect(!mp.contains(coord(3, 3)), "between the parts, inside the overall box")
        // Even-odd is per polygon: overlapping a separate polygon does not punch a hole.
        #expect(mp.contains(coord(0.7, 0.3)))
    }

    @Test func concaveShape() throws {
        // A "U": the notch between the arms is outside.
        let u = try MultiPolygon(wkt: "POLYGON((0 0,3 0,3 3,2 3,2 1,1 1,1 3,0 3,0 0))")
        #expect(u.contains(coord(0.5, 2.5)) && u.contains(coord(2.5, 2.5)) && u.contains(coord(1.5, 0.5)))
        #expect(!u.contains(coord(1.5, 2)))
        #expect(!u.contains(coord(1.5, 3)))
    }

    @Test func unclosedRingsBuiltDirectlyStillWork() {
        let mp = MultiPolygon(polygons: [Polygon(rings: [[coord(0, 0), coord(4, 0), coord(4, 4), coord(0, 4)]])])
        #expect(mp.contains(coord(2, 2)) && !mp.contains(coord(5, 2)))
        #expect(!MultiPolygon(polygons: []).contains(coord(0, 0)))
        #expect(!MultiPolygon(polygons: [Polygon(rings: [[]])]).contains(coord(0, 0)))
    }

    @Test func bandedIndexAgreesWithNaiveScan() {
        var rng = SplitMix64(state: 42)
        let center = coord(116.4, 39.9)
        let outer = jaggedRing(center: center, n: 3_000, rng: &rng)
        let hole = jaggedRing(center: coord(116.45, 39.92), n: 40, rng: &rng).map {
            coord(116.45 + ($0.longitude - 116.45) * 0.2, 39.92 + ($0.latitude - 39.92) * 0.2)
        }
        let island = square(117.2, 39.0, 117.3, 39.1)
        let mp = MultiPolygon(polygons: [Polygon(rings: [outer, hole]), Polygon(rings: [island])])
        var insideCount = 0
        for _ in 0..<4_000 {
            let p = coord(Double.random(in: 115.8...117.4, using: &rng), Double.random(in: 39.3...40.5, using: &rng))
            let expected = naiveContains(mp, p)
            #expect(mp.contains(p) == expected, "\(p)")
            if expected { insideCount += 1 }
        }
        // Vertices' own latitudes are the tricky rays.
        for v in outer.prefix(500) {
            let p = coord(v.longitude - 0.01, v.latitude)
            #expect(mp.contains(p) == naiveContains(mp, p), "\(p)")
        }
        #expect(insideCount > 500)
    }

    @Test func mutatingPolygonsRebuildsTheIndex() throws {
        var mp = try MultiPolygon(wkt: "POLYGON((0 0,1 0,1 1,0 1,0 0))")
        let copy = mp
        mp.polygons.append(Polygon(rings: [square(5, 5, 6, 6)]))
        #expect(mp.contains(coord(5.5, 5.5)) && !copy.contains(coord(5.5, 5.5)))
        #expect(mp.boundingBox.maxLongitude == 6)
        #expect(mp != copy)
        #expect(Set([mp, copy, copy]).count == 2)
    }

    @Test func distanceToBoundary() throws {
        let mp = MultiPolygon(polygons: [Polygon(rings: [square(116.0, 39.9, 116.2, 40.1)])])
        let center = coord(116.1, 40.0)
        // Nearest edges are east and west: 0.1° of longitude at 40°N.
        let expected = 0.1 * 111_195.080 * cos(40.0 * .pi / 180)
        #expect(abs(mp.distanceToBoundary(from: center) - expected) / expected < 0.001)
        // A sampled point N metres inside really is N metres from the border.
        let inside = destination(coord(116.1, 39.9), bearing: 0, distance: 2_000)
        #expect(abs(mp.distanceToBoundary(from: inside) - 2_000) < 5)
        #expect(MultiPolygon(polygons: []).distanceToBoundary(from: center) == .infinity)
    }
}

// MARK: - Serialisation

@Suite struct EncodingTests {
    private static let sample = try! MultiPolygon(wkt: """
        MULTIPOLYGON(((116.39742812345 39.90923, 116.5 39.9, 116.45 40.123456789, 116.39742812345 39.90923)),
        ((-179.9999999 -89.9999999, 179.9999999 -89.9999999, 179.9999999 89.9999999, -179.9999999 -89.9999999),
         (0 0, 1 0, 1 1, 0 0)))
        """)

    @Test func roundTripsWithinOneCentimetre() throws {
        let bytes = Self.sample.encoded()
        #expect(bytes.count == 4 + 4 + 2 * 4 + 3 * 4 + 12 * 8)
        #expect(Array(bytes.prefix(4)) == [0x47, 0x5A, 0x4D, 0x01])
        let decoded = try MultiPolygon(encoded: bytes)
        #expect(decoded.polygons.count == 2 && decoded.polygons[1].rings.count == 2)
        for (p, q) in zip(Self.sample.polygons, decoded.polygons) {
            for (r, s) in zip(p.rings, q.rings) {
                #expect(r.count == s.count)
                for (a, b) in zip(r, s) { #expect(a.distance(to: b) < 0.01) }
            }
        }
        // Seven decimals or fewer survive exactly.
        let exact = try MultiPolygon(wkt: "POLYGON((120.1234567 30.2,120.2 30.2,120.2 30.3,120.1234567 30.2))")
        #expect(try MultiPolygon(encoded: exact.encoded()) == exact)
    }

    @Test func rejectsCorruptBytes() {
        let good = Self.sample.encoded()
        // Every truncation.
        for length in 0..<good.count {
            #expect(throws: GeometryError.self) { try MultiPolygon(encoded: Array(good.prefix(length))) }
        }
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: good + [0]) }
        var badMagic = good; badMagic[0] = 0x00
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: badMagic) }
        // Absurd counts must be refused before allocating.
        var hugeCount = good; hugeCount.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: hugeCount) }
        var hugeRings = good; hugeRings.replaceSubrange(8..<12, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: hugeRings) }
        // A ring that no longer closes, and an out-of-range latitude.
        var open = good; open[good.count - 1] ^= 0x01
        #expect(throws: GeometryError.corrupt("ring 3 is not closed")) { try MultiPolygon(encoded: open) }
        var outOfRange = good; outOfRange.replaceSubrange(32..<36, with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(throws: GeometryError.self) { try MultiPolygon(encoded: outOfRange) }
        #expect(throws: GeometryError.empty) { try MultiPolygon(encoded: [0x47, 0x5A, 0x4D, 0x01, 0, 0, 0, 0]) }
        // Random garbage never traps.
        var rng = SplitMix64(state: 7)
        for _ in 0..<500 {
            var junk = (0..<Int.random(in: 0..<120, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            if junk.count >= 4 && Bool.random(using: &rng) { junk.replaceSubrange(0..<4, with: MultiPolygon.binaryMagic) }
            _ = try? MultiPolygon(encoded: junk)
        }
    }

    @Test func geoJSONGeometryIsValidJSON() throws {
        let mp = try MultiPolygon(wkt: "POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1.5,2 2,1 1))")
        let json = mp.geoJSONGeometry
        #expect(json == #"{"type":"MultiPolygon","coordinates":[[[[0,0],[10,0],[10,10],[0,0]],[[1,1],[2,1.5],[2,2],[1,1]]]]}"#)
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "MultiPolygon")
        let coordinates = object?["coordinates"] as? [[[[Double]]]]
        #expect(coordinates?[0][1][1] == [2, 1.5])
        #expect(MultiPolygon(polygons: []).geoJSONGeometry == #"{"type":"MultiPolygon","coordinates":[]}"#)
    }
}

// MARK: - The banded index on a large boundary

@Suite struct GeometryPerformanceTests {
    /// A 20,000-vertex boundary-like ring (with a hole): the banded index answers as a scan of
    /// every edge does, on random points of its box and on points just inside and outside the
    /// boundary, where a band that misses an edge would show.
    @Test func containsOnALargeBoundaryMatchesBruteForce() {
        var rng = SplitMix64(state: 3)
        // A wiggly but boundary-like ring: a circle whose radius wanders a little.
        var ring: [Coordinate] = []
        var radii: [Double] = []
        var radius = 0.4
        let n = 20_000
        for k in 0..<n {
            radius = min(0.5, max(0.3, radius + Double.random(in: -0.002...0.002, using: &rng)))
            radii.append(radius)
            let angle = Double(k) / Double(n) * 2 * Double.pi
            ring.append(coord(116.4 + radius * cos(angle), 39.9 + radius * sin(angle)))
        }
        ring.append(ring[0])
        let hole = [coord(116.35, 39.85), coord(116.45, 39.85), coord(116.45, 39.95), coord(116.35, 39.95), coord(116.35, 39.85)]
        let mp = MultiPolygon(polygons: [Polygon(rings: [ring, hole])])
        var probes = (0..<2_000).map { _ in
            coord(Double.random(in: 115.8...117.0, using: &rng), Double.random(in: 39.3...40.5, using: &rng))
        }
        // Near the boundary: a hair inside and outside a vertex, on every side of the circle.
        for _ in 0..<2_000 {
            let k = Int.random(in: 0..<n, using: &rng)
            let angle = Double(k) / Double(n) * 2 * Double.pi
            let r = radii[k] * (1 + Double.random(in: -0.01...0.01, using: &rng))
            probes.append(coord(116.4 + r * cos(angle), 39.9 + r * sin(angle)))
        }
        var inside = 0, disagreements: [Coordinate] = []
        for p in probes {
            let expected = naiveContains(mp, p)
            if expected { inside += 1 }
            if mp.contains(p) != expected { disagreements.append(p) }
        }
        #expect(disagreements.isEmpty, "\(disagreements.count) of \(probes.count) disagree, first \(disagreements.prefix(5))")
        // Both answers occur, so agreement is not the trivial all-false or all-true.
        #expect(inside > 500 && inside < probes.count - 500, "\(inside) of \(probes.count) inside")
        #expect(!mp.contains(coord(116.4, 39.9)), "the hole")
        #expect(mp.contains(coord(116.4, 40.1)))
        #expect(probes.allSatisfy { CoordinateTransform.isInChina($0) })
        #expect(ChinaBorder.outline.polygons.reduce(0) { $0 + $1.rings[0].count } < 2_000)
    }
}
