import Gazetteer

/// AMap's web service (API v3) answered from a gazetteer database: the one place where AMap's
/// paths, parameters and response shapes are known. `gazetteer serve` hands it every `/v3/…`
/// request, and the CLI's `--json` asks it the same way, so both answer byte for byte alike.
public struct AMapService: Sendable {
    public let repository: Repository

    public init(repository: Repository) {
        self.repository = repository
    }

    /// The paths this service answers, e.g. `/v3/geocode/regeo`.
    public static let paths: [String] = [
        "/v3/geocode/regeo", "/v3/geocode/geo", "/v3/place/text", "/v3/place/around",
        "/v3/config/district", "/v3/assistant/inputtips", "/v3/assistant/coordinate/convert",
    ]

    /// Answers one request. `parameters` are the decoded name/value pairs of the query string
    /// and form body (the first value of a repeated name); unknown names are ignored and empty
    /// values count as absent, as AMap's SDKs send them. Never throws: a failure is AMap's own
    /// error answer (`status` "0" with its `info` and `infocode`).
    public func answer(path: String, parameters: [String: String]) -> AMapAnswer {
        AMapAnswer.failure(.serviceNotAvailable)
    }
}

/// One answer: the JSON body and, for the transport, whether it is a success.
public struct AMapAnswer: Sendable, Equatable {
    /// The whole JSON document, UTF-8.
    public var json: String
    /// AMap's `infocode`: "10000" on success.
    public var infocode: String

    public var isSuccess: Bool { infocode == AMapError.okCode }

    public init(json: String, infocode: String) {
        self.json = json
        self.infocode = infocode
    }

    /// AMap's error answer: `{"status":"0","info":…,"infocode":…}` and nothing else.
    public static func failure(_ error: AMapError) -> AMapAnswer {
        AMapAnswer(json: #"{"status":"0","info":"\#(error.info)","infocode":"\#(error.infocode)"}"#, infocode: error.infocode)
    }
}

/// AMap's error codes (its `info`/`infocode` pairs) that this service answers with.
public struct AMapError: Error, Sendable, Equatable {
    public var info: String
    public var infocode: String

    public init(info: String, infocode: String) {
        self.info = info
        self.infocode = infocode
    }

    static let okCode = "10000"
    /// A wrong or missing key, when keys are required.
    public static let invalidUserKey = AMapError(info: "INVALID_USER_KEY", infocode: "10001")
    /// A path this service does not answer.
    public static let serviceNotAvailable = AMapError(info: "SERVICE_NOT_AVAILABLE", infocode: "10002")
    /// A value that breaks the parameter's rules.
    public static let invalidParams = AMapError(info: "INVALID_PARAMS", infocode: "20000")
    /// A required parameter absent or empty.
    public static let missingRequiredParams = AMapError(info: "MISSING_REQUIRED_PARAMS", infocode: "20001")
    /// A request of the wrong protocol (method, content type).
    public static let illegalRequest = AMapError(info: "ILLEGAL_REQUEST", infocode: "20002")
    /// Anything unexpected (a database failure): never a stack trace or a path.
    public static let unknownError = AMapError(info: "UNKNOWN_ERROR", infocode: "20003")
    /// The database cannot be read.
    public static let resourceUnavailable = AMapError(info: "RESOURCE_UNAVAILABLE", infocode: "10017")
}
