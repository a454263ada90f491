import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

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

@Suite(.tags(.fast)) struct CoordinateTransformTests {
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
