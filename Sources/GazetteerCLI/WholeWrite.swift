import Foundation

/// Bytes written whole to a file descriptor, a short write resumed, a failure said as a person
/// can read it ("cannot write the answers: No space left on device"): `FileHandle.write(_:)`
/// traps on a full disk or a closed pipe, and its throwing form says "NSCocoaErrorDomain Code=640".
enum WholeWrite {
    static func write(_ bytes: [UInt8], to fd: Int32, what: String) throws {
        let code = bytes.withUnsafeBytes { raw -> Int32 in
            var at = 0
            while at < raw.count {
                let n = Foundation.write(fd, raw.baseAddress! + at, raw.count - at)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                at += n
            }
            return 0
        }
        try check(code, what: what)
    }

    /// The error for a write that failed with errno `code` (0: none), as `write` reports it.
    static func check(_ code: Int32, what: String) throws {
        if code != 0 { throw CLIError("cannot write \(what): \(String(cString: strerror(code)))") }
    }
}
