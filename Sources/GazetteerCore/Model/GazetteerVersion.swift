/// Versions an app may want to log or show.
public enum GazetteerVersion {
    /// The release of this library and CLI.
    public static let release = "0.1.0"
    /// The database schema version this build reads and writes.
    public static var schema: Int { Schema.version }
}
