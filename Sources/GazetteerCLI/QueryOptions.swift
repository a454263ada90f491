import ArgumentParser
import Foundation
import Gazetteer
import GazetteerAMap

/// `--coordsys` and `--json`, shared by the query verbs (reverse, nearby, search, geocode, district).
struct QueryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Coordinate system of given and printed coordinates: gcj02 (AMap, default), wgs84 (GPS) or bd09 (Baidu).", valueName: "system"))
    var coordsys: CoordinateSystem = .gcj02

    @Flag(help: "Print JSON in AMap's response shape; failures too (\"status\":\"0\", the reason in \"info\"; exit status 1, or 64 for a usage error).")
    var json = false
}

extension QueryOptions {
    /// Prints what `body` answers. A failure (bad input, a missing or unreadable database …)
    /// becomes, in --json mode, AMap's failure object on stdout (as scripts expect), otherwise
    /// a message on stderr; both exit 1.
    func answer(_ body: () throws -> String) throws {
        try failingAsJSON { print(GazetteerCommand.escapingControls(try body())) }
    }

    /// Runs `body`; in --json mode an error it throws is printed as AMap's failure object on
    /// stdout and the command exits 1. An `ExitCode` passes through: its output is already out.
    func failingAsJSON(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let failure as AMapFailure {
            print(failure.json)
            throw ExitCode(1)
        } catch {
            guard json, !(error is ExitCode) else { throw error }
            print(JSON.failure(ErrorAdvice.message(for: error)).text)
            throw ExitCode(1)
        }
    }
}

/// An AMap error answer of the service in --json mode: printed as it is, exit status 1.
struct AMapFailure: Error {
    let json: String
}

extension QueryOptions {
    /// The AMap service's answer to `path` with `parameters` (the verb's flags in AMap's names),
    /// coordinates in --coordsys: what `gazetteer serve` answers for the same request.
    func amap(
        _ repository: Repository, _ path: String, _ parameters: [String: String?],
        _ configure: (inout AMapService.Options) -> Void = { _ in }
    ) throws -> String {
        var options = AMapService.Options()
        options.system = coordsys
        configure(&options)
        let answer = AMapService(repository: repository).answer(path: path, parameters: parameters.compactMapValues { $0 }, options: options)
        guard answer.isSuccess else { throw AMapFailure(json: answer.json) }
        return answer.json
    }
}

/// A coordinate as an AMap `location` parameter, exact to well under a millimetre.
func amapLocation(_ c: Coordinate) -> String {
    String(format: "%.9f,%.9f", c.longitude, c.latitude)
}
