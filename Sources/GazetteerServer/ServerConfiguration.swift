import Foundation

/// How `gazetteer serve` listens and what it accepts.
public struct ServerConfiguration: Sendable {
    /// The address to bind: loopback unless told otherwise.
    public var host: String
    /// The port; 0 picks a free one (the real one is passed to `onListening`).
    public var port: Int
    /// When set, the keys a request's `key` must be one of (else AMap's 10001 INVALID_USER_KEY).
    /// Nil accepts and ignores every key.
    public var keys: Set<String>?
    /// Largest request body read (a form POST); a larger one is answered 413.
    public var maxBodyBytes: Int
    /// Longest query string; a longer one is answered AMap's 20000 INVALID_PARAMS.
    public var maxQueryBytes: Int
    /// How long one query may take before the client gets AMap's 20003 UNKNOWN_ERROR. The query
    /// itself runs on until SQLite returns (it cannot be interrupted), but the client is freed,
    /// and a query still queued when its time is up is never started.
    public var requestTimeout: Duration
    /// How long in-flight requests may take to finish after SIGINT/SIGTERM.
    public var shutdownGracePeriod: Duration

    public init(
        host: String = "127.0.0.1", port: Int = 8080, keys: Set<String>? = nil,
        maxBodyBytes: Int = 64 * 1024, maxQueryBytes: Int = 8 * 1024,
        requestTimeout: Duration = .seconds(10), shutdownGracePeriod: Duration = .seconds(15)
    ) {
        self.host = host
        self.port = port
        self.keys = keys
        self.maxBodyBytes = maxBodyBytes
        self.maxQueryBytes = maxQueryBytes
        self.requestTimeout = requestTimeout
        self.shutdownGracePeriod = shutdownGracePeriod
    }
}

/// The keys file of `--keys-file`: one key per line; blank lines and lines starting with `#`
/// are ignored, as is whitespace around a key.
public enum KeysFile {
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    public static func keys(in text: String) -> Set<String> {
        var keys = Set<String>()
        for line in text.split(whereSeparator: \.isNewline) {
            let key = line.trimmingCharacters(in: .whitespaces)
            if key.isEmpty || key.hasPrefix("#") { continue }
            keys.insert(key)
        }
        return keys
    }

    public static func load(path: String) throws(Unreadable) -> Set<String> {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Unreadable(description: "cannot read the keys file \(path).")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Unreadable(description: "the keys file \(path) is not UTF-8 text.")
        }
        return keys(in: text)
    }
}
