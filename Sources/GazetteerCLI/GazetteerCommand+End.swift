import Foundation

extension GazetteerCommand {
    /// Ends the process with `status` once a batch's answers are written, leaving `kept` (a
    /// repository and all it cached: regions, the parsers' memos) to the system: freed piece by
    /// piece, they cost a geocoding batch a fiftieth of its work, on one core, after its last line.
    static func end(keeping kept: AnyObject?, status: Int32) -> Never {
        withExtendedLifetime(kept) { Foundation.exit(status) }
    }
}
