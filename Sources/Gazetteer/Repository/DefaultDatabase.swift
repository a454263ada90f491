import Foundation

/// Where the CLI keeps its database when none is named: built once from the bundled seed so
/// a first command answers with no setup step.
public enum DefaultDatabase {
    /// `$XDG_DATA_HOME/gazetteer/gazetteer.sqlite`, else `~/.local/share/gazetteer/gazetteer.sqlite`.
    public static var path: String {
        let env = ProcessInfo.processInfo.environment
        let base: String
        if let xdg = env["XDG_DATA_HOME"], !xdg.isEmpty {
            base = xdg
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share").path
        }
        return URL(fileURLWithPath: base).appendingPathComponent("gazetteer/gazetteer.sqlite").path
    }
}
