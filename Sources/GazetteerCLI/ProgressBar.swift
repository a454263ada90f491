import Foundation
import Gazetteer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-line progress bar on stderr, drawn only when stderr is a terminal so piped and
/// logged runs stay clean.
final class ProgressBar {
    let enabled: Bool
    private let label: String

    init(label: String) {
        self.label = label
        enabled = isatty(STDERR_FILENO) != 0
    }

    func update(_ p: ImportProgress) {
        guard enabled else { return }
        let fraction = p.bytesTotal > 0 ? min(1, Double(p.bytesDone) / Double(p.bytesTotal)) : 0
        let width = 24
        let filled = Int(fraction * Double(width))
        let rate = p.elapsedSeconds > 0 ? Double(p.rows) / p.elapsedSeconds : 0
        var eta = ""
        if fraction > 0.01 && !p.finished {
            let remaining = p.elapsedSeconds * (1 - fraction) / fraction
            eta = " ETA \(Int(remaining.rounded()))s"
        }
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        let file = (p.file as NSString).lastPathComponent
        let line = "\(label) \(bar) \(Int(fraction * 100))%  \(Self.group(p.rows)) rows  \(Self.group(Int(rate)))/s\(eta)  \(file)"
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + line + (p.finished ? "\n" : "")).utf8))
    }

    /// 1234567 → 1,234,567
    static func group(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }
}
