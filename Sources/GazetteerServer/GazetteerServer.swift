import Foundation
import Gazetteer
import GazetteerAMap
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// `gazetteer serve`: AMap's web service (v3) over HTTP, answered by `AMapService`.
///
/// Every `/v3/…` path (GET, or POST with a form body) goes to `AMapService.answer(path:parameters:)`;
/// `/health` says whether the database can be read; `/` and `/picker` are the location picker
/// (`PickerRoutes`); anything else is 404. Every AMap-shaped
/// answer, errors included, is HTTP 200, as AMap's own, because clients treat non-200 as a
/// transport failure and retry it.
public struct GazetteerServer: Sendable {
    public let service: AMapService
    public let configuration: ServerConfiguration

    public init(service: AMapService, configuration: ServerConfiguration = ServerConfiguration()) {
        self.service = service
        self.configuration = configuration
    }

    /// Makes SwiftNIO's event loops Swift's global executor, so a request's handler runs on the
    /// loop that read it instead of hopping to the cooperative pool and back (measured: about a
    /// third less CPU per request on a 2-core machine). Call once, before any task starts, as a
    /// process's first concurrent work; returns false (and changes nothing) when too late.
    @discardableResult
    public static func installEventLoopsAsGlobalExecutor() -> Bool {
        NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    }

    /// Runs until SIGINT or SIGTERM, then stops accepting connections and lets in-flight requests
    /// finish (for at most `configuration.shutdownGracePeriod`). `onListening` gets the URL once
    /// the socket is bound.
    public func run(logger: Logger, onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let app = application(logger: logger, onListening: onListening)
        var config = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        config.maximumGracefulShutdownDuration = configuration.shutdownGracePeriod
        try await ServiceGroup(configuration: config).run()
    }

    /// The Hummingbird application (not running): for `run` and for tests.
    public func application(logger: Logger, onListening: @escaping @Sendable (String) -> Void = { _ in }) -> some ApplicationProtocol {
        let host = configuration.host
        let port = configuration.port
        return Application(
            router: router(),
            server: .http1(configuration: .init(
                idleTimeout: .seconds(60),
                httpDecoderConfiguration: .init(maxHeaderFieldSize: 16 * 1024, maxHeaderListSize: 64 * 1024, maxHeaderFieldCount: 100))),
            configuration: .init(address: .hostname(host, port: port), serverName: "gazetteer"),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? port
                onListening("http://\(host.contains(":") ? "[\(host)]" : host):\(bound)")
            },
            logger: logger
        )
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.addMiddleware {
            AccessLogMiddleware()
            CORSMiddleware(
                allowOrigin: .all, allowHeaders: [.accept, .contentType, .origin],
                allowMethods: [.get, .post, .options], maxAge: .seconds(600))
            ErrorShieldMiddleware()
            MethodNotAllowedMiddleware()
        }
        let health: @Sendable (Request, BasicRequestContext) async throws -> Response = { _, _ in await self.health() }
        router.get("/health", use: health)
        router.head("/health", use: health)
        let amap: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            try await self.amap(request)
        }
        for method: HTTPRequest.Method in [.get, .post, .put, .delete, .patch] {
            router.on("/v3/**", method: method, use: amap)
        }
        PickerRoutes.add(to: router, server: self)
        return router
    }

    // MARK: Handlers

    /// 200 `{"status":"ok"}` when a cheap query succeeds, else 503 (load balancers take the
    /// replica out).
    func health() async -> Response {
        let repository = service.repository
        let ok = await runBlocking(within: configuration.requestTimeout) {
            (try? repository.districts("000000", subdistrict: 0)) != nil
        } ?? false
        var body = ByteBuffer()
        body.writeString(ok ? #"{"status":"ok"}"# : #"{"status":"unavailable"}"#)
        return Response(
            status: ok ? .ok : .serviceUnavailable,
            headers: [.contentType: AMapResponse.jsonType, .cacheControl: "no-store"],
            body: .init(byteBuffer: body))
    }

    /// One `/v3/…` request: parameters from the query string and form body, AMap's checks in
    /// AMap's order (path, method, key, callback), then the service, within the time limit.
    func amap(_ request: Request) async throws -> Response {
        let path = request.uri.path
        let query = request.uri.query ?? ""
        guard request.method == .get || request.method == .post else {
            return AMapResponse.make(.failure(.illegalRequest))
        }
        guard query.utf8.count <= configuration.maxQueryBytes,
            var parameters = try? FormDecoding.fields(query)
        else {
            return AMapResponse.make(.failure(.invalidParams))
        }
        if request.method == .post {
            if let type = request.headers[.contentType], !AMapResponse.isForm(type) {
                return AMapResponse.make(.failure(.illegalRequest))
            }
            // Throws NIOTooManyBytesError past the limit, which Hummingbird answers 413.
            let body = try await request.body.collect(upTo: configuration.maxBodyBytes)
            guard let form = try? FormDecoding.fields(bytes: body.readableBytesView) else {
                return AMapResponse.make(.failure(.invalidParams))
            }
            parameters = FormDecoding.merged(query: parameters, body: form)
        }
        var callback: String?
        if let name = parameters["callback"], parameters["output"]?.lowercased() != "xml" {
            guard AMapResponse.isValidCallback(name) else { return AMapResponse.make(.failure(.invalidParams)) }
            callback = name
        }
        if let keys = configuration.keys, AMapService.paths.contains(path) {
            guard let key = parameters["key"], keys.contains(key) else {
                return AMapResponse.make(.failure(.invalidUserKey), callback: callback)
            }
        }
        let service = service
        let frozen = parameters
        if AMapService.boundedPaths.contains(path) {
            return AMapResponse.make(service.answer(path: path, parameters: frozen), callback: callback)
        }
        let answer = await runBlocking(within: configuration.requestTimeout) {
            service.answer(path: path, parameters: frozen)
        } ?? .failure(.unknownError)
        return AMapResponse.make(answer, callback: callback)
    }
}

/// How AMap answers go on the wire.
enum AMapResponse {
    static let jsonType = "application/json;charset=UTF-8"
    static let javascriptType = "application/javascript;charset=UTF-8"
    /// Carries the answer's infocode from the handler to the access log, which removes it.
    static let infocodeField = HTTPFields.Element.Name("X-Gazetteer-Infocode")!

    /// HTTP 200 with the JSON, or `callback(JSON)` as JavaScript for JSONP.
    static func make(_ answer: AMapAnswer, callback: String? = nil) -> Response {
        var body = ByteBuffer()
        if let callback {
            body.writeString(callback + "(" + answer.json + ")")
        } else {
            body.writeString(answer.json)
        }
        return Response(
            status: .ok,
            headers: [.contentType: callback == nil ? jsonType : javascriptType, infocodeField: answer.infocode],
            body: .init(byteBuffer: body))
    }

    /// A JSONP callback name that cannot inject script: `^[A-Za-z_$][A-Za-z0-9_$.]{0,127}$`.
    static func isValidCallback(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 128 else { return false }
        func letter(_ c: UInt8) -> Bool {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
                || c == UInt8(ascii: "_") || c == UInt8(ascii: "$")
        }
        func digit(_ c: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) }
        return letter(first) && bytes.dropFirst().allSatisfy { letter($0) || digit($0) || $0 == UInt8(ascii: ".") }
    }

    /// `application/x-www-form-urlencoded`, with or without parameters such as a charset.
    static func isForm(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased() == "application/x-www-form-urlencoded"
    }
}
