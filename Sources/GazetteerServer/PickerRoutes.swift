import GazetteerAMap
import Hummingbird
import NIOCore

/// The location picker (地图选点): one page at `/` and `/picker`, its files at `/picker/<name>`,
/// all compiled into the binary, and its base map at `/picker/regions.geojson` (`RegionMap`).
///
/// The page refers to everything by relative URL (`picker/picker.js`, `v3/geocode/regeo`),
/// which resolves the same from `/` and from `/picker`, and under any prefix a proxy adds;
/// `/picker/` (which would resolve them one folder too deep) is sent to `../picker`.
enum PickerRoutes {
    struct Asset: Sendable {
        let bytes: [UInt8]
        let type: String
        let etag: String

        init(_ bytes: [UInt8], _ type: String) {
            self.bytes = bytes
            self.type = type
            // FNV-1a of the content: the same binary always sends the same tag.
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            etag = "\"" + String(h, radix: 16) + "\""
        }
    }

    static let page = Asset(PackageResources.index_html, "text/html; charset=utf-8")

    /// The files under `/picker/`, by name.
    static let assets: [String: Asset] = [
        "picker.js": Asset(PackageResources.picker_js, "text/javascript; charset=utf-8"),
        "picker.css": Asset(PackageResources.picker_css, "text/css; charset=utf-8"),
        "leaflet.js": Asset(PackageResources.leaflet_js, "text/javascript; charset=utf-8"),
        "leaflet.css": Asset(PackageResources.leaflet_css, "text/css; charset=utf-8"),
        "leaflet-LICENSE.txt": Asset(PackageResources.leaflet_LICENSE_txt, "text/plain; charset=utf-8"),
    ]

    /// Everything comes from this server: the page works with no network, and says so to
    /// the browser.
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'"

    static func add(to router: Router<BasicRequestContext>, server: GazetteerServer) {
        let showPage: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            // "/picker/": the page's relative URLs would resolve under /picker/picker/.
            if request.uri.path.count > 1, request.uri.path.hasSuffix("/") {
                return Response(status: .movedPermanently, headers: [.location: "../picker", .cacheControl: "no-cache"])
            }
            return serve(page, request)
        }
        for path in ["/", "/picker"] {
            router.get(RouterPath(path), use: showPage)
            router.head(RouterPath(path), use: showPage)
        }
        let showAsset: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, context in
            guard let name = context.parameters.get("file"), let asset = assets[name] else {
                return Response(status: .notFound)
            }
            return serve(asset, request)
        }
        router.get("/picker/{file}", use: showAsset)
        router.head("/picker/{file}", use: showAsset)
        router.get("/picker/regions.geojson") { request, _ in try await server.regions(request) }
    }

    /// The asset, or 304 when the client holds this version.
    static func serve(_ asset: Asset, _ request: Request) -> Response {
        var headers: HTTPFields = [
            .contentType: asset.type, .cacheControl: "no-cache", .eTag: asset.etag,
            .xContentTypeOptions: "nosniff", .contentSecurityPolicy: contentSecurityPolicy,
        ]
        if request.headers[.ifNoneMatch]?.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == asset.etag }) == true {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.bytes.count)
        if request.method == .head { return Response(status: .ok, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}

extension GazetteerServer {
    /// `GET /picker/regions.geojson?bbox=…&zoom=…`: `RegionMap`'s answer, within the time limit.
    func regions(_ request: Request) async throws -> Response {
        let query = request.uri.query ?? ""
        let map = RegionMap(repository: service.repository)
        var answer: RegionMap.Answer
        if query.utf8.count > configuration.maxQueryBytes {
            answer = .invalid("the query string is too long")
        } else if let parameters = try? FormDecoding.fields(query) {
            answer = await runBlocking(within: configuration.requestTimeout) { map.answer(parameters: parameters) }
                ?? .timedOut
        } else {
            answer = .invalid("the query string is not form encoded")
        }
        var body = ByteBuffer()
        body.writeString(answer.json)
        return Response(
            status: HTTPResponse.Status(code: answer.status),
            headers: [
                .contentType: answer.status == 200 ? "application/geo+json;charset=UTF-8" : AMapResponse.jsonType,
                .cacheControl: "no-cache", AMapResponse.infocodeField: answer.infocode,
            ],
            body: .init(byteBuffer: body))
    }
}
