import Foundation
import Gazetteer

/// AMap's web service (API v3) answered from a gazetteer database: the one place where AMap's
/// paths, parameters and response shapes are known. `gazetteer serve` hands it every `/v3/…`
/// request, and the CLI's `--json` asks it the same way, so both answer byte for byte alike.
public struct AMapService: Sendable {
    public let repository: Repository

    public init(repository: Repository) {
        self.repository = repository
    }

    /// The paths this service answers, e.g. `/v3/geocode/regeo`.
    public static let paths: [String] = [
        "/v3/geocode/regeo", "/v3/geocode/geo", "/v3/place/text", "/v3/place/around",
        "/v3/config/district", "/v3/assistant/inputtips", "/v3/assistant/coordinate/convert",
    ]

    /// Paths whose work is small and bounded whatever the parameters (a point, or at most 20 in
    /// a batch, with POIs within at most 3 km): a server may answer them where it stands instead
    /// of handing them to a thread pool under a time limit, a hop that costs more than they do.
    public static let boundedPaths: Set<String> = ["/v3/geocode/regeo", "/v3/assistant/coordinate/convert"]

    /// Answers one request. `parameters` are the decoded name/value pairs of the query string
    /// and form body (the first value of a repeated name); unknown names are ignored and empty
    /// values count as absent, as AMap's SDKs send them. Never throws: a failure is AMap's own
    /// error answer (`status` "0" with its `info` and `infocode`).
    public func answer(path: String, parameters: [String: String]) -> AMapAnswer {
        answer(path: path, parameters: parameters, options: Options())
    }

    /// What the CLI asks beyond AMap's parameters; `gazetteer serve` uses the defaults.
    public struct Options: Sendable {
        /// The coordinate system of given and answered coordinates (AMap's is GCJ-02).
        public var system: CoordinateSystem = .gcj02
        /// Most POIs regeo lists with extensions=all.
        public var regeoPOILimit = Repository.reverseGeocodePOILimit
        /// Largest regeo `radius` (AMap: 3000).
        public var regeoMaxRadius = 3000.0
        /// Largest `offset` of place/text, place/around and config/district (AMap: 25).
        public var maxOffset = 25
        /// The types place/around searches with neither keywords nor types (AMap's default:
        /// 餐饮服务, 商务住宅, 生活服务); nil searches every POI.
        public var aroundDefaultTypes: String? = "050000|120000|070000"

        public init() {}
    }

    /// Longest `keywords` (AMap: 80 characters) and `address` accepted.
    public static let maxKeywordLength = 80
    public static let maxAddressLength = 200
    /// Most items in a `|`-separated batch.
    public static let regeoBatchLimit = 20, geoBatchLimit = 10, convertBatchLimit = 40
    /// Deepest `page`.
    public static let maxPage = 100

    /// `answer(path:parameters:)` with the CLI's `options`.
    public func answer(path: String, parameters: [String: String], options: Options) -> AMapAnswer {
        guard Self.paths.contains(path) else { return .failure(.serviceNotAvailable) }
        let request = Request(parameters.filter { !$0.value.trimmingSpaces().isEmpty })
        do {
            if let output = request["output"], output.lowercased() != "json" { throw AMapError.invalidParams }
            let json: JSON
            switch path {
            case "/v3/geocode/regeo": json = try regeo(request, options)
            case "/v3/geocode/geo": json = try geo(request, options)
            case "/v3/place/text": json = try text(request, options)
            case "/v3/place/around": json = try around(request, options)
            case "/v3/config/district": json = try district(request, options)
            case "/v3/assistant/inputtips": json = try inputtips(request, options)
            default: json = try convert(request)
            }
            return AMapAnswer(json: json.text, infocode: AMapError.okCode)
        } catch let error as AMapError {
            return .failure(error)
        } catch GazetteerError.invalidArgument {
            return .failure(.invalidParams)
        } catch {
            return .failure(.unknownError)
        }
    }

    /// The parameters of one request, with AMap's rules for reading them.
    struct Request {
        let values: [String: String]
        init(_ values: [String: String]) { self.values = values }

        subscript(_ name: String) -> String? { values[name] }

        func required(_ name: String) throws(AMapError) -> String {
            guard let v = values[name] else { throw .missingRequiredParams }
            return v
        }

        func bool(_ name: String) throws(AMapError) -> Bool {
            guard let v = values[name]?.lowercased() else { return false }
            switch v {
            case "true", "1": return true
            case "false", "0": return false
            default: throw .invalidParams
            }
        }

        /// `extensions`: base (false) or all (true).
        func all() throws(AMapError) -> Bool {
            guard let v = values["extensions"]?.lowercased() else { return false }
            switch v {
            case "all": return true
            case "base": return false
            default: throw .invalidParams
            }
        }

        func int(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(AMapError) -> Int {
            guard let text = values[name] else { return value }
            guard let n = Int(text.trimmingSpaces()), range.contains(n) else { throw .invalidParams }
            return n
        }

        func number(_ name: String, default value: Double, in range: ClosedRange<Double>) throws(AMapError) -> Double {
            guard let text = values[name] else { return value }
            guard let n = Double(text.trimmingSpaces()), n.isFinite, range.contains(n) else { throw .invalidParams }
            return n
        }

        /// Text no longer than `limit` characters.
        func text(_ name: String, limit: Int) throws(AMapError) -> String? {
            guard let v = values[name] else { return nil }
            guard v.count <= limit else { throw .invalidParams }
            return v.trimmingSpaces()
        }

        /// `|`-separated items, at most `limit`.
        func batch(_ text: String, limit: Int) throws(AMapError) -> [String] {
            let items = text.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
            guard items.count <= limit, !items.contains(where: \.isEmpty) else { throw .invalidParams }
            return items
        }
    }

    static func coordinate(_ text: String) throws(AMapError) -> Coordinate {
        guard text.utf8.count <= 64, let c = try? Coordinate(parsing: text) else { throw .invalidParams }
        return c
    }

    // MARK: endpoints

    func regeo(_ q: Request, _ o: Options) throws -> JSON {
        let text = try q.required("location")
        let batch = try q.bool("batch")
        let all = try q.all()
        let radius = try q.number("radius", default: 1000, in: 0...o.regeoMaxRadius)
        _ = try q.int("roadlevel", default: 0, in: 0...1)
        _ = try q.int("homeorcorp", default: 0, in: 0...2)
        let items = try q.batch(text, limit: batch ? Self.regeoBatchLimit : Int.max)
        var points: [Coordinate] = []
        for item in batch ? items : [items[0]] { points.append(try Self.coordinate(item)) }
        var poiTypes: [String] = []
        if all, !batch, let t = q["poitype"] { poiTypes = try q.batch(t, limit: 50) }
        // AMap's mini-program SDK (amap-wx.js) says who it is; see `writeRegeocode`.
        let placeholderRoad = q["platform"] == "WXJS"
        func one(_ p: Coordinate) throws -> [UInt8] {
            var r = try repository.reverseGeocode(p, system: o.system, radius: all ? radius : 0, poiLimit: all ? o.regeoPOILimit : 0)
            if !poiTypes.isEmpty {
                let prefixes = poiTypes.map { t -> String in
                    var p = Substring(t)
                    while p.count > 2 && p.hasSuffix("00") { p = p.dropLast(2) }
                    return String(p)
                }
                r.pois = r.pois.filter { d in prefixes.contains { (d.poi.typecode ?? "").hasPrefix($0) || (d.poi.type ?? "").contains($0) } }
            }
            var out: [UInt8] = []
            AMapShape.writeRegeocode(r, all: all, placeholderRoad: placeholderRoad, into: &out)
            return out
        }
        if batch {
            let answers = try points.map { JSON.raw(String(decoding: try one($0), as: UTF8.self)) }
            return .object(AMapShape.ok + [("regeocodes", .array(answers))])
        }
        return .object(AMapShape.ok + [("regeocode", .raw(String(decoding: try one(points[0]), as: UTF8.self)))])
    }

    func geo(_ q: Request, _ o: Options) throws -> JSON {
        let text = try q.required("address")
        let batch = try q.bool("batch")
        let items = try q.batch(text, limit: batch ? Self.geoBatchLimit : Int.max)
        guard items.allSatisfy({ $0.count <= Self.maxAddressLength }) else { throw AMapError.invalidParams }
        let city = try q.text("city", limit: Self.maxKeywordLength).flatMap { try resolveCity($0) }
        if batch {
            let entries = try items.map { AMapShape.geocode(try repository.geocode($0, city: city, system: o.system)) }
            return .object(AMapShape.ok + [("count", .string(String(entries.count))), ("geocodes", .array(entries))])
        }
        let g = try repository.geocode(items[0], city: city, system: o.system)
        return AMapShape.geoAnswer(g)
    }

    func paging(_ q: Request, _ o: Options) throws(AMapError) -> (offset: Int, page: Int) {
        (try q.int("offset", default: 20, in: 1...o.maxOffset), try q.int("page", default: 1, in: 1...Self.maxPage))
    }

    func text(_ q: Request, _ o: Options) throws -> JSON {
        let keywords = try q.text("keywords", limit: Self.maxKeywordLength)
        let types = try q.text("types", limit: 400)
        guard keywords != nil || types != nil else { throw AMapError.missingRequiredParams }
        let all = try q.all()
        let (offset, page) = try paging(q, o)
        var options = SearchOptions()
        options.cityLimit = try q.bool("citylimit")
        if let city = try q.text("city", limit: Self.maxKeywordLength) {
            options.city = try resolveCity(city)
            if options.city == nil && options.cityLimit { return AMapShape.places([], count: 0) }
        } else {
            options.cityLimit = false
        }
        if let l = q["location"] { options.location = try Self.coordinate(l) }
        options.system = o.system
        if let types { options.types = [types] }
        options.limit = offset
        options.page = page
        // Types alone: every POI of those types is a match for an empty keyword.
        let result = try repository.search(keywords ?? "", options: options)
        return AMapShape.places(result.hits.map { AMapShape.place($0, all: all) }, count: result.count)
    }

    func around(_ q: Request, _ o: Options) throws -> JSON {
        let centre = try Self.coordinate(try q.required("location"))
        let keywords = try q.text("keywords", limit: Self.maxKeywordLength)
        let types = try q.text("types", limit: 400)
        let radius = try q.number("radius", default: 5000, in: 0...50_000)
        let all = try q.all()
        let (offset, page) = try paging(q, o)
        if let s = q["sortrule"]?.lowercased(), s != "distance", s != "weight" { throw AMapError.invalidParams }
        var options = NearbyOptions()
        options.radius = max(radius, 1)
        options.keywords = keywords
        if let t = types ?? (keywords == nil ? o.aroundDefaultTypes : nil) { options.types = [t] }
        options.limit = offset
        options.page = page
        options.system = o.system
        options.countAll = true
        var result = try repository.nearby(centre, options: options)
        if let city = try q.text("city", limit: Self.maxKeywordLength), let code = try resolveCity(city), let area = AdminCode(code) {
            let level: RegionLevel = code.hasSuffix("0000") ? .province : code.hasSuffix("00") ? .city : .district
            result.pois = result.pois.filter { p in p.poi.adcode.flatMap { AdminCode($0) }.map { $0.isWithin(area, level: level) } ?? false }
        }
        return AMapShape.places(result.pois.map { AMapShape.place($0, all: all) }, count: result.count ?? result.pois.count)
    }

    func district(_ q: Request, _ o: Options) throws -> JSON {
        let keywords = try q.text("keywords", limit: Self.maxKeywordLength)
        let subdistrict = try q.int("subdistrict", default: 1, in: 0...3)
        let all = try q.all()
        let (offset, page) = try paging(q, o)
        let filterText = q["filter"] ?? q["adcode"]
        var filter: AdminCode?
        if let f = filterText {
            guard let code = AdminCode(f) else { throw AMapError.invalidParams }
            filter = code
        }
        let country = keywords == nil || ["100000", "中国", "中华人民共和国"].contains(keywords!)
        var nodes: [DistrictNode]
        if country {
            nodes = try repository.districts(nil, subdistrict: max(0, subdistrict - 1), polygon: false, system: o.system)
        } else {
            var keyword = keywords!
            if keyword.allSatisfy({ $0.isASCII && $0.isNumber }), (3...4).contains(keyword.count),
               let region = try repository.regions(citycode: keyword, system: o.system).first {
                keyword = region.code
            }
            nodes = try repository.districts(keyword, subdistrict: subdistrict, polygon: all, system: o.system)
        }
        if let filter {
            let level: RegionLevel = filter.value % 10_000 == 0 ? .province : filter.value % 100 == 0 ? .city : .district
            nodes = nodes.filter { AdminCode($0.region.code).map { $0.isWithin(filter, level: level) } ?? false }
        }
        func json(_ n: DistrictNode, parent: Coordinate?, top: Bool) -> JSON {
            let r = n.region
            let adcode = r.level == .town ? (AdminCode(r.code)?.countyAdcode.description ?? r.code) : r.code
            var centre = r.center, approximate = r.centerIsApproximate
            if centre == nil {
                let e = AMapShape.estimate(r, above: [])
                centre = e.location ?? parent
                approximate = true
            }
            var pairs: [(String, JSON)] = [("citycode", .string(r.citycode ?? "")), ("adcode", .string(adcode)), ("name", .string(r.name))]
            if top && all { pairs.append(("polyline", .string(n.boundaryGeoJSON.map(AMapShape.polyline) ?? ""))) }
            pairs += [("center", .string(centre.map(AMapShape.location) ?? "")), ("level", .string(AMapShape.districtLevel(r.level)))]
            if r.level == .town { pairs.append(("towncode", .string(r.code))) }
            pairs.append(("center_approximate", .string(String(approximate))))
            if let b = r.boundingBox {
                // Our extra, as AMap writes a pair of corners (its `rectangle`): "minlng,minlat;maxlng,maxlat".
                pairs.append(("bbox", .string(AMapShape.location(Coordinate(longitude: b.minLongitude, latitude: b.minLatitude)) + ";" + AMapShape.location(Coordinate(longitude: b.maxLongitude, latitude: b.maxLatitude)))))
            }
            pairs.append(("districts", .array(n.children.map { json($0, parent: centre, top: false) })))
            return .object(pairs)
        }
        var top: [JSON]
        let count: Int
        if country {
            let centre = Coordinate(longitude: 116.3683244, latitude: 39.915085).converted(from: .gcj02, to: o.system)
            var pairs: [(String, JSON)] = [("citycode", .string("")), ("adcode", .string("100000")), ("name", .string("中华人民共和国"))]
            if all { pairs.append(("polyline", .string(""))) }
            pairs += [("center", .string(o.system == .gcj02 ? "116.3683244,39.915085" : AMapShape.location(centre))), ("level", .string("country")),
                      ("center_approximate", .string("false")),
                      ("districts", .array(subdistrict > 0 ? nodes.map { json($0, parent: centre, top: false) } : []))]
            top = [.object(pairs)]
            count = 1
        } else {
            count = nodes.count
            top = try nodes.dropFirst((page - 1) * offset).prefix(offset).map { n in
                // A town without a centre takes its district's, as the best estimate.
                var parent: Coordinate?
                if n.region.center == nil, let p = n.region.parentCode { parent = try repository.districts(p, subdistrict: 0, system: o.system).first?.region.center }
                return json(n, parent: parent, top: true)
            }
        }
        if country && page > 1 { top = [] }
        return .object(AMapShape.ok + [("count", .string(String(count))), ("suggestion", AMapShape.emptySuggestion), ("districts", .array(top))])
    }

    func inputtips(_ q: Request, _ o: Options) throws -> JSON {
        guard let keywords = try q.text("keywords", limit: Self.maxKeywordLength), !keywords.isEmpty else { throw AMapError.missingRequiredParams }
        var options = SearchOptions()
        options.cityLimit = try q.bool("citylimit")
        if let city = try q.text("city", limit: Self.maxKeywordLength) {
            options.city = try resolveCity(city)
            if options.city == nil && options.cityLimit { return .object(AMapShape.ok + [("count", .string("0")), ("tips", .array([]))]) }
        } else {
            options.cityLimit = false
        }
        if let l = q["location"] { options.location = try Self.coordinate(l) }
        if let t = try q.text("type", limit: 400) { options.types = [t] }
        options.system = o.system
        options.limit = 10
        let datatypes = Set((q["datatype"] ?? "all").lowercased().split(separator: "|").map(String.init))
        guard datatypes.isSubset(of: ["all", "poi", "bus", "busline"]) else { throw AMapError.invalidParams }
        let wantRegions = datatypes.contains("all"), wantPOIs = datatypes.contains("all") || datatypes.contains("poi")
        let hits = wantPOIs ? try repository.search(keywords, options: options).hits : []
        var tips: [JSON] = []
        for hit in hits {
            let district = [hit.province?.name, hit.city?.name, hit.district?.name].compactMap { $0 }.joined()
            switch hit.kind {
            case .poi(let p):
                tips.append(.object([("id", .string(p.id)), ("name", .string(p.name)), ("district", .string(district)),
                                     ("adcode", .string(p.adcode ?? "")), ("location", .string(AMapShape.location(p.location))),
                                     ("address", .string(p.address ?? "")), ("typecode", .string(p.typecode ?? ""))]))
            case .region(let r):
                guard wantRegions else { continue }
                let e = AMapShape.estimate(r, above: [hit.province, hit.city, hit.district])
                let adcode = r.level == .town ? (AdminCode(r.code)?.countyAdcode.description ?? r.code) : r.code
                tips.append(.object([("id", .string(r.code)), ("name", .string(r.name)), ("district", .string(district)),
                                     ("adcode", .string(adcode)), ("location", .string(e.location.map(AMapShape.location) ?? "")),
                                     ("address", .string("")), ("typecode", .string(AMapShape.regionType(r).code)),
                                     ("location_approximate", .string(String(e.approximate)))]))
            }
        }
        return .object(AMapShape.ok + [("count", .string(String(tips.count))), ("tips", .array(tips))])
    }

    func convert(_ q: Request) throws -> JSON {
        let items = try q.batch(try q.required("locations"), limit: Self.convertBatchLimit)
        let source: CoordinateSystem
        switch (q["coordsys"] ?? "autonavi").lowercased() {
        case "autonavi": source = .gcj02
        case "gps": source = .wgs84
        case "baidu": source = .bd09
        default: throw AMapError.invalidParams  // mapbar's transform is not public
        }
        var out: [String] = []
        for item in items {
            out.append(AMapShape.location(try Self.coordinate(item).converted(from: source, to: .gcj02)))
        }
        return .object([("status", .string("1")), ("info", .string("ok")), ("infocode", .string("10000")), ("locations", .string(out.joined(separator: ";")))])
    }

    // MARK: cities

    /// AMap's `city`: a name, short name, pinyin, area code (citycode) or adcode, as the adcode
    /// the library takes; nil if no region answers to it.
    func resolveCity(_ text: String) throws -> String? {
        let t = text.trimmingSpaces()
        if t.isEmpty { return nil }
        if t.allSatisfy({ $0.isASCII && $0.isNumber }) {
            if t.count == 6 || t.count == 12 {
                return try repository.districts(t, subdistrict: 0).isEmpty ? nil : t
            }
            return try repository.regions(citycode: t).first?.code
        }
        let named = try repository.districts(t, subdistrict: 0).map(\.region)
        let preference: [RegionLevel] = [.city, .province, .district, .town]
        if let best = named.min(by: { (preference.firstIndex(of: $0.level)!, $0.code) < (preference.firstIndex(of: $1.level)!, $1.code) }) {
            return best.code
        }
        // Pinyin (hangzhou) through the search, which knows it.
        guard t.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        var options = SearchOptions()
        options.limit = 10
        let hits = try repository.search(t, options: options).hits
        for hit in hits where hit.match == .exact {
            if case .region(let r) = hit.kind, r.level != .town { return r.code }
        }
        return nil
    }
}

/// One answer: the JSON body and, for the transport, whether it is a success.
public struct AMapAnswer: Sendable, Equatable {
    /// The whole JSON document, UTF-8.
    public var json: String
    /// AMap's `infocode`: "10000" on success.
    public var infocode: String

    public var isSuccess: Bool { infocode == AMapError.okCode }

    public init(json: String, infocode: String) {
        self.json = json
        self.infocode = infocode
    }

    /// AMap's error answer: `{"status":"0","info":…,"infocode":…}` and nothing else.
    public static func failure(_ error: AMapError) -> AMapAnswer {
        AMapAnswer(json: #"{"status":"0","info":"\#(error.info)","infocode":"\#(error.infocode)"}"#, infocode: error.infocode)
    }
}

/// AMap's error codes (its `info`/`infocode` pairs) that this service answers with.
public struct AMapError: Error, Sendable, Equatable {
    public var info: String
    public var infocode: String

    public init(info: String, infocode: String) {
        self.info = info
        self.infocode = infocode
    }

    static let okCode = "10000"
    /// A wrong or missing key, when keys are required.
    public static let invalidUserKey = AMapError(info: "INVALID_USER_KEY", infocode: "10001")
    /// A path this service does not answer.
    public static let serviceNotAvailable = AMapError(info: "SERVICE_NOT_AVAILABLE", infocode: "10002")
    /// A value that breaks the parameter's rules.
    public static let invalidParams = AMapError(info: "INVALID_PARAMS", infocode: "20000")
    /// A required parameter absent or empty.
    public static let missingRequiredParams = AMapError(info: "MISSING_REQUIRED_PARAMS", infocode: "20001")
    /// A request of the wrong protocol (method, content type).
    public static let illegalRequest = AMapError(info: "ILLEGAL_REQUEST", infocode: "20002")
    /// Anything unexpected (a database failure): never a stack trace or a path.
    public static let unknownError = AMapError(info: "UNKNOWN_ERROR", infocode: "20003")
    /// The database cannot be read.
    public static let resourceUnavailable = AMapError(info: "RESOURCE_UNAVAILABLE", infocode: "10017")
}

extension StringProtocol {
    /// `trimmingCharacters(in: .whitespaces)` (tab and the space separators) without Foundation,
    /// whose version cost each request more than its query.
    func trimmingSpaces() -> String {
        func isSpace(_ u: Unicode.Scalar) -> Bool { u == "\t" || u.properties.generalCategory == .spaceSeparator }
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(Substring(scalars[first...last]))
    }
}
