import Foundation
import Gazetteer

/// The location picker's base map: the regions in a box as GeoJSON, drawn from our own
/// boundaries since an offline map has no tile server. `gazetteer serve` answers
/// `GET /picker/regions.geojson?bbox=minlng,minlat,maxlng,maxlat&zoom=Z` with it.
///
/// Not an AMap endpoint, but it fails as AMap's do (`status` "0", `info`, `infocode`), with an
/// HTTP 400 and a `detail` saying which parameter is wrong and why.
///
/// The zoom chooses the level drawn (provinces below 6, cities below 9, districts from 9 on)
/// and the simplification: one pixel at zoom z is `360 / (256 · 2^z)` degrees of Web Mercator,
/// and a boundary keeps no detail smaller than `pixelTolerance` of a pixel. Every answer is
/// bounded: the box may be at most `maxPixels` wide and high at its zoom, at most
/// `maxRegions` regions are drawn, and past `maxPoints` points the tolerance is doubled until
/// the shapes fit (the answer's `tolerance` says how far it went; after six doublings the last
/// regions are left out and `complete` is false).
public struct RegionMap: Sendable {
    public let repository: Repository
    /// Most regions drawn.
    public var maxRegions = RegionMap.maxRegions
    /// Most points in all the shapes of one answer.
    public var maxPoints = RegionMap.maxPoints

    public init(repository: Repository) {
        self.repository = repository
    }

    public static let zoomRange = 3...18
    /// Widest and highest box, in pixels at the zoom asked (a 4K screen with a margin).
    public static let maxPixels = 8192.0
    /// The defaults of `maxRegions` and `maxPoints`: about 1 MB of GeoJSON at most.
    public static let maxRegions = 400
    public static let maxPoints = 60_000
    /// Largest distance a dropped boundary point may lie from the drawn line, in pixels.
    public static let pixelTolerance = 0.75

    /// An answer: the HTTP status (200 or 400; 500 when the database fails) and its JSON.
    public struct Answer: Sendable, Equatable {
        public var status: Int
        public var json: String
        /// AMap's infocode of the answer, "10000" on success, for the access log.
        public var infocode: String

        public init(status: Int, json: String, infocode: String) {
            self.status = status
            self.json = json
            self.infocode = infocode
        }

        /// HTTP 400 with AMap's INVALID_PARAMS and `detail`.
        public static func invalid(_ detail: String) -> Answer {
            failure(Invalid(error: .invalidParams, detail: detail))
        }

        static func failure(_ invalid: Invalid) -> Answer {
            let json = JSON.object([
                ("status", .string("0")), ("info", .string(invalid.error.info)), ("infocode", .string(invalid.error.infocode)),
                ("detail", .string(invalid.detail)),
            ]).text
            return Answer(status: 400, json: json, infocode: invalid.error.infocode)
        }

        /// HTTP 503 with AMap's UNKNOWN_ERROR: the answer took longer than the server allows.
        public static let timedOut = Answer(status: 503, json: AMapAnswer.failure(.unknownError).json, infocode: AMapError.unknownError.infocode)
    }

    /// The level drawn at `zoom`.
    public static func level(zoom: Int) -> RegionLevel {
        zoom < 6 ? .province : zoom < 9 ? .city : .district
    }

    /// One pixel at `zoom`, in degrees of longitude (and of Web Mercator y).
    public static func pixelDegrees(zoom: Int) -> Double {
        360 / (256 * pow(2, Double(zoom)))
    }

    /// Decimal places that place a point within a tenth of a pixel at `zoom`.
    public static func decimals(zoom: Int) -> Int {
        max(2, min(7, Int((log10(10 / pixelDegrees(zoom: zoom))).rounded(.up))))
    }

    struct Invalid: Error {
        var error: AMapError
        var detail: String
    }

    /// Answers one request; never throws.
    public func answer(parameters: [String: String]) -> Answer {
        do {
            let (box, zoom) = try Self.parse(parameters)
            return try draw(box: box, zoom: zoom)
        } catch let invalid as Invalid {
            return .failure(invalid)
        } catch {
            return Answer(status: 500, json: AMapAnswer.failure(.unknownError).json, infocode: AMapError.unknownError.infocode)
        }
    }

    /// `bbox` and `zoom`, checked.
    static func parse(_ parameters: [String: String]) throws(Invalid) -> (BoundingBox, Int) {
        func value(_ name: String) throws(Invalid) -> String {
            guard let v = parameters[name]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else {
                throw Invalid(error: .missingRequiredParams, detail: "\(name) is required")
            }
            return v
        }
        let zoomText = try value("zoom")
        guard zoomText.utf8.count <= 4, let zoom = Int(zoomText), zoomRange.contains(zoom) else {
            throw Invalid(error: .invalidParams, detail: "zoom must be a whole number from \(zoomRange.lowerBound) to \(zoomRange.upperBound)")
        }
        let bboxText = try value("bbox")
        let parts = bboxText.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.filter(\.isFinite)
        guard bboxText.utf8.count <= 200, parts.count == 4, numbers.count == 4 else {
            throw Invalid(error: .invalidParams, detail: "bbox must be four numbers: minlng,minlat,maxlng,maxlat")
        }
        let box = BoundingBox(minLongitude: numbers[0], minLatitude: numbers[1], maxLongitude: numbers[2], maxLatitude: numbers[3])
        guard (-180...180).contains(box.minLongitude), (-180...180).contains(box.maxLongitude),
              (-90...90).contains(box.minLatitude), (-90...90).contains(box.maxLatitude)
        else {
            throw Invalid(error: .invalidParams, detail: "bbox is out of range: longitudes -180 to 180, latitudes -90 to 90")
        }
        guard box.minLongitude < box.maxLongitude, box.minLatitude < box.maxLatitude else {
            throw Invalid(error: .invalidParams, detail: "bbox must have minlng < maxlng and minlat < maxlat")
        }
        let pixel = pixelDegrees(zoom: zoom)
        let width = (box.maxLongitude - box.minLongitude) / pixel
        let height = (MultiPolygon.mercatorY(box.maxLatitude) - MultiPolygon.mercatorY(box.minLatitude)) / pixel
        guard width <= maxPixels, height <= maxPixels else {
            throw Invalid(error: .invalidParams, detail: "bbox is too large for zoom \(zoom): at most \(Int(maxPixels)) pixels wide and high")
        }
        return (box, zoom)
    }

    func draw(box: BoundingBox, zoom: Int) throws -> Answer {
        let level = Self.level(zoom: zoom)
        var tolerance = Self.pixelDegrees(zoom: zoom) * Self.pixelTolerance
        var result = try repository.regionOutlines(in: box, level: level, tolerance: tolerance, limit: maxRegions)
        var points = result.outlines.reduce(0) { $0 + $1.shape.pointCount }
        for _ in 0..<6 where points > maxPoints {
            tolerance *= 2
            result = try repository.regionOutlines(in: box, level: level, tolerance: tolerance, limit: maxRegions)
            points = result.outlines.reduce(0) { $0 + $1.shape.pointCount }
        }
        var complete = result.complete
        var outlines = result.outlines
        while points > maxPoints, let last = outlines.popLast() {
            points -= last.shape.pointCount
            complete = false
        }
        let decimals = Self.decimals(zoom: zoom)
        let features: [JSON] = outlines.map { o in
            let r = o.region
            let centre = r.center ?? r.boundingBox.map {
                Coordinate(longitude: ($0.minLongitude + $0.maxLongitude) / 2, latitude: ($0.minLatitude + $0.maxLatitude) / 2)
            }
            // The name goes at the region's centre when that is on the part drawn, else inside
            // the part drawn.
            let label = centre.flatMap { o.shape.contains($0) ? $0 : nil } ?? o.shape.labelPoint ?? centre
            func point(_ c: Coordinate?) -> JSON {
                guard let c else { return .null }
                return .array([.raw(Self.rounded(c.longitude, 6)), .raw(Self.rounded(c.latitude, 6))])
            }
            return .object([
                ("type", .string("Feature")), ("id", .string(r.code)),
                ("properties", .object([
                    ("adcode", .string(r.code)), ("name", .string(r.name)), ("level", .string(r.level.name)),
                    ("citycode", .string(r.citycode ?? "")), ("center", point(centre)), ("label", point(label)),
                ])),
                ("geometry", .raw(o.shape.geoJSONGeometry(decimals: decimals))),
            ])
        }
        let json = JSON.object([
            ("type", .string("FeatureCollection")),
            ("zoom", .int(zoom)), ("level", .string(level.name)),
            ("tolerance", .raw(Self.rounded(tolerance, 9))), ("complete", .bool(complete)),
            ("features", .array(features)),
        ]).text
        return Answer(status: 200, json: json, infocode: AMapError.okCode)
    }

    static func rounded(_ v: Double, _ decimals: Int) -> String {
        let scale = pow(10, Double(decimals))
        let r = (v * scale).rounded() / scale
        return r == r.rounded() && abs(r) < 1e15 ? String(Int64(r)) : String(r)
    }
}
