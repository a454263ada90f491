import ArgumentParser
import Dispatch
import Foundation
import Gazetteer
import GazetteerAMap
import GazetteerServer
import Logging

extension GazetteerCommand {
    /// `gazetteer serve`: AMap's web service (v3) over HTTP from the database.
    struct Serve: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Answer AMap web-service (v3) requests over HTTP from the database: a local AMap.",
            discussion: """
                Point an AMap client at http://HOST:PORT instead of https://restapi.amap.com. Every /v3/… \
                path answers GET, and POST with a form body; GET /health answers {"status":"ok"} (503 when \
                the database cannot be read). One log line per request goes to stderr.

                GET / (or /picker) is the location picker (地图选点), a page that needs no network: open \
                http://HOST:PORT/ in a browser, or embed it (see the README). Its base map comes from \
                GET /picker/regions.geojson?bbox=MINLNG,MINLAT,MAXLNG,MAXLAT&zoom=Z.

                Without --keys-file any key is accepted and ignored; with it, a request whose key is not in \
                the file gets AMap's INVALID_USER_KEY (10001), and the picker is opened as /?key=KEY. \
                Limits: a 64 KiB body (413), an 8 KiB query string and a 10 s query (AMap's 20000 and \
                20003 answers).

                Stops on SIGINT or SIGTERM after in-flight requests finish: exit status 0. Exit status 1 \
                when it cannot start (no database, unreadable keys file, address in use).
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: ArgumentHelp("The address to listen on; 0.0.0.0 for every interface.", valueName: "address"))
        var host = "127.0.0.1"
        @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "port"))
        var port = 8080
        @Option(help: ArgumentHelp("A file of accepted keys, one per line (# starts a comment).", valueName: "file"))
        var keysFile: String?

        func validate() throws {
            guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port).") }
            if host.isEmpty { throw ValidationError("--host needs an address.") }
        }

        func run() throws {
            let keys: Set<String>?
            do {
                keys = try keysFile.map(KeysFile.load(path:))
            } catch {
                throw CLIError("\(error)")
            }
            if let keys, keys.isEmpty, let keysFile {
                stderr("warning: \(keysFile) lists no keys: every /v3 request will be answered INVALID_USER_KEY.")
            }
            let repository = try database.openRepository()
            let server = GazetteerServer(
                service: AMapService(repository: repository),
                configuration: ServerConfiguration(host: host, port: port, keys: keys))
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = .info
                return handler
            }
            let logger = Logger(label: "gazetteer.serve")

            // The root command is synchronous (ParsableCommand); the server is async. Run it in
            // a task and wait here: signals are handled on ServiceLifecycle's own queue.
            let outcome = Outcome()
            let done = DispatchSemaphore(value: 0)
            GazetteerServer.installEventLoopsAsGlobalExecutor()
            Task {
                do {
                    try await server.run(logger: logger) { url in stderr("listening on \(url)") }
                } catch {
                    outcome.set("\(error)")
                }
                done.signal()
            }
            done.wait()
            if let failure = outcome.get() {
                throw CLIError("cannot serve on \(host):\(port): \(failure)")
            }
        }
    }
}

/// The server task's failure, handed to the waiting thread.
private final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var failure: String?
    func set(_ text: String) { lock.withLock { failure = text } }
    func get() -> String? { lock.withLock { failure } }
}
