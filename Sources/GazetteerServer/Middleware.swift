import GazetteerAMap
import Hummingbird
import Logging

/// One log line per request: method, path (never the query, which holds the key), status,
/// AMap infocode (for `/v3/…` answers) and duration: `GET /v3/geocode/regeo 200 10000 0.412 ms`.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        func log(status: Int, infocode: String?) {
            // One preformatted message, no metadata dictionary: this runs for every request.
            var line = request.method.rawValue
            line += " "
            line += request.uri.path
            line += " \(status)"
            if let infocode { line += " " + infocode }
            line += " " + Self.milliseconds(ContinuousClock.now - start) + " ms"
            context.logger.info("\(line)")
        }
        do {
            var response = try await next(request, context)
            let infocode = response.headers[AMapResponse.infocodeField]
            response.headers[AMapResponse.infocodeField] = nil
            log(status: response.status.code, infocode: infocode)
            return response
        } catch {
            log(status: (error as? any HTTPResponseError)?.status.code ?? 500, infocode: nil)
            throw error
        }
    }

    /// `d` in milliseconds with three decimals ("1.234"), without Foundation's formatting.
    static func milliseconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        let micros = s * 1_000_000 + atto / 1_000_000_000_000
        let frac = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - frac.count) + frac
    }
}

/// Keeps internal errors from reaching a client: anything thrown that is not an HTTP error
/// (a 413 for a large body, a 404) becomes AMap's 20003 UNKNOWN_ERROR (HTTP 200) under `/v3/`,
/// and a bare 500 elsewhere. The error itself is only logged.
struct ErrorShieldMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            context.logger.error("request failed", metadata: ["path": "\(request.uri.path)", "error": "\(error)"])
            if request.uri.path.hasPrefix("/v3/") {
                return AMapResponse.make(.failure(.unknownError))
            }
            return Response(status: .internalServerError)
        }
    }
}

/// A known path asked with a method no route takes (TRACE, QUERY, …) is 405 with `Allow`, not
/// the router's 404. `/v3/…` keeps answering PUT, DELETE and PATCH with AMap's ILLEGAL_REQUEST,
/// as the service does; OPTIONS is CORS's.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        let method = request.method
        if path == "/health", ![.get, .head, .options].contains(method) {
            return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD"])
        }
        if path.hasPrefix("/v3/"), ![.get, .post, .put, .delete, .patch, .options, .head].contains(method) {
            return Response(status: .methodNotAllowed, headers: [.allow: "GET, POST"])
        }
        return try await next(request, context)
    }
}
