import Foundation
import Gazetteer
import GazetteerAMap
import Hummingbird
import HummingbirdTesting
import Testing
@testable import GazetteerServer

/// The picker's routes in process: the page and its files come from the binary, refer to one
/// another by relative URL only, and the base map endpoint answers or refuses as documented.
@Suite struct PickerRouteTests {
    static func body(_ response: TestResponse) -> String { String(buffer: response.body) }

    @Test(arguments: ["/", "/picker"])
    func thePageIsServed(_ path: String) async throws {
        let (server, db) = try makeServer()
        try await server.application(logger: testLogger).test(.router) { client in
            try await client.execute(uri: path, method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "text/html; charset=utf-8")
                #expect(r.headers[.contentSecurityPolicy]?.contains("default-src 'self'") == true)
                #expect(r.headers[.xContentTypeOptions] == "nosniff")
                let html = Self.body(r)
                #expect(html.contains("<title>地图选点</title>"))
                #expect(html.contains(#"<html lang="zh-CN">"#))
                #expect(html.contains(#"<script src="picker/picker.js"></script>"#))
                #expect(html.contains("提交"))
            }
            try await client.execute(uri: path, method: .head) { r in
                #expect(r.status == .ok)
                #expect(r.body.readableBytes == 0)
                #expect(r.headers[.contentLength] == String(PickerRoutes.page.bytes.count))
            }
        }
        _ = db
    }

    @Test func aTrailingSlashGoesToThePage() async throws {
        let (server, db) = try makeServer()
        try await server.application(logger: testLogger).test(.router) { client in
            try await client.execute(uri: "/picker/", method: .get) { r in
                #expect(r.status == .movedPermanently)
                // Relative, so it works under any prefix a proxy adds.
                #expect(r.headers[.location] == "../picker")
            }
        }
        _ = db
    }

    /// Every `src`/`href` of the page, and every file the page and script name, is served, and
    /// none is absolute: the page works offline, under any path prefix and port.
    @Test func everythingThePageUsesIsServedByRelativeURL() async throws {
        let (server, db) = try makeServer()
        let html = String(decoding: PickerRoutes.page.bytes, as: UTF8.self)
        let references = html.matches(of: /(?:src|href)="([^"]+)"/).map { String($0.output.1) }.filter { !$0.hasPrefix("data:") }
        #expect(references.sorted() == ["picker/leaflet.css", "picker/leaflet.js", "picker/picker.css", "picker/picker.js"])
        let script = String(decoding: try #require(PickerRoutes.assets["picker.js"]).bytes, as: UTF8.self)
        for text in [html, script] {
            #expect(text.firstMatch(of: /https?:\/\//) == nil, "an absolute URL in the page")
            #expect(text.firstMatch(of: /["']\/(v3|picker)\//) == nil, "a root-relative URL in the page")
        }
        for endpoint in ["v3/geocode/regeo", "v3/place/around", "v3/place/text", "v3/assistant/inputtips", "v3/geocode/geo",
                         "v3/assistant/coordinate/convert", "picker/regions.geojson"] {
            #expect(script.contains("'\(endpoint)'"), "the script does not call \(endpoint)")
        }
        try await server.application(logger: testLogger).test(.router) { client in
            for reference in references + ["picker/leaflet-LICENSE.txt"] {
                try await client.execute(uri: "/" + reference, method: .get) { r in
                    #expect(r.status == .ok, "\(reference)")
                    #expect(r.body.readableBytes > 100, "\(reference)")
                }
            }
        }
        _ = db
    }

    @Test func leafletIsVendoredWithItsLicence() async throws {
        let (server, db) = try makeServer()
        try await server.application(logger: testLogger).test(.router) { client in
            try await client.execute(uri: "/picker/leaflet.js", method: .get) { r in
                #expect(r.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(Self.body(r).hasPrefix("/* @preserve\n * Leaflet 1.9.4, a JS library for interactive maps."))
            }
            try await client.execute(uri: "/picker/leaflet.css", method: .get) { r in
                #expect(r.headers[.contentType] == "text/css; charset=utf-8")
            }
            try await client.execute(uri: "/picker/leaflet-LICENSE.txt", method: .get) { r in
                #expect(Self.body(r).hasPrefix("BSD 2-Clause License"))
                #expect(Self.body(r).contains("Volodymyr Agafonkin"))
            }
        }
        _ = db
    }

    @Test func unknownFilesAre404AndNoPathEscapes() async throws {
        let (server, db) = try makeServer()
        try await server.application(logger: testLogger).test(.router) { client in
            for uri in ["/picker/nothing.js", "/picker/README.md", "/picker/..%2FPackage.swift", "/picker/index.html", "/picker/picker/picker.js"] {
                try await client.execute(uri: uri, method: .get) { r in
                    #expect(r.status == .notFound, "\(uri)")
                }
            }
        }
        _ = db
    }

    @Test func anUnchangedFileIs304() async throws {
        let (server, db) = try makeServer()
        try await server.application(logger: testLogger).test(.router) { client in
            let tag = try await client.execute(uri: "/picker/picker.js", method: .get) { r in
                #expect(r.headers[.cacheControl] == "no-cache")
                return try #require(r.headers[.eTag])
            }
            try await client.execute(uri: "/picker/picker.js", method: .get, headers: [.ifNoneMatch: tag]) { r in
                #expect(r.status == .notModified)
                #expect(r.body.readableBytes == 0)
            }
            try await client.execute(uri: "/picker/picker.js", method: .get, headers: [.ifNoneMatch: "\"other\""]) { r in
                #expect(r.status == .ok)
            }
        }
        _ = db
    }

    @Test func badMapParametersAre400AndSayWhy() async throws {
        let (server, db) = try makeServer()
        try await server.application(logger: testLogger).test(.router) { client in
            for (query, detail) in [("", "zoom is required"), ("zoom=10&bbox=1,2,3", "four numbers"), ("zoom=10&bbox=%zz", "not form encoded"),
                                    ("zoom=30&bbox=116,39,117,40", "zoom must be")] {
                try await client.execute(uri: "/picker/regions.geojson?" + query, method: .get) { r in
                    #expect(r.status == .badRequest, "\(query)")
                    #expect(r.headers[.contentType] == "application/json;charset=UTF-8")
                    #expect(Self.body(r).hasPrefix(#"{"status":"0","info":""#))
                    #expect(Self.body(r).contains(detail), "\(query): \(Self.body(r))")
                    #expect(!Self.body(r).contains("/work") && !Self.body(r).contains(".swift"))
                }
            }
            let long = "zoom=10&bbox=" + String(repeating: "1", count: 9000)
            try await client.execute(uri: "/picker/regions.geojson?" + long, method: .get) { r in
                #expect(r.status == .badRequest)
                #expect(Self.body(r).contains("too long"))
            }
        }
        _ = db
    }

    @Test(.disabled(if: fastTestsOnly, "GAZETTEER_TESTS=fast: needs the seed"))
    func theBaseMapIsServed() async throws {
        let server = GazetteerServer(service: AMapService(repository: ServerSeed.repository), configuration: ServerConfiguration(port: 0))
        try await server.application(logger: testLogger).test(.router) { client in
            try await client.execute(uri: "/picker/regions.geojson?bbox=116.38,39.90,116.41,39.92&zoom=16", method: .get) { r in
                #expect(r.status == .ok)
                #expect(r.headers[.contentType] == "application/geo+json;charset=UTF-8")
                #expect(r.headers[AMapResponse.infocodeField] == nil)
                let doc = try #require(try JSONSerialization.jsonObject(with: Data(buffer: r.body)) as? [String: Any])
                let names = (doc["features"] as? [[String: Any]] ?? []).compactMap { ($0["properties"] as? [String: Any])?["name"] as? String }
                #expect(Set(names) == ["东城区", "西城区"])
            }
        }
    }
}
