import ArgumentParser
import Gazetteer

// Values parsed by ArgumentParser, so a bad one is a usage error (exit status 64) named after
// its option, before any work starts.

extension CoordinateSystem: ExpressibleByArgument {}

/// `--encoding`: `utf8` or `gbk` (also `utf-8`, `gb2312`, `gb18030`, `cp936`: all read as GB18030).
extension TextEncoding: ExpressibleByArgument {
    public init?(argument: String) { self.init(name: argument) }
    public static var allValueStrings: [String] { ["utf8", "gbk"] }
    public var defaultValueDescription: String { self == .utf8 ? "utf8" : "gbk" }
}

/// `--location LNG,LAT`, parsed by the library's `Coordinate(parsing:)`: the reason it gives
/// (not two numbers, out of range, swapped) is the usage error's.
func parseLocation(_ text: String) throws -> Coordinate {
    do {
        return try Coordinate(parsing: text)
    } catch .invalidArgument(_, let reason) {
        throw CLIError(reason)
    }
}
