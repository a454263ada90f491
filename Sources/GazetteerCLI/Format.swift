import Foundation

/// Text formatting for people: aligned columns and readable sizes and distances.
enum Format {
    /// Two aligned columns, the left one padded by display width (CJK counts double).
    static func table(_ rows: [(String, String)]) -> String {
        let width = rows.map { displayWidth($0.0) }.max() ?? 0
        return rows.map { pad($0.0, to: width) + "  " + $0.1 }.joined(separator: "\n")
    }

    /// Columns aligned by display width; the last column is not padded.
    static func columns(_ rows: [[String]]) -> String {
        guard let count = rows.map(\.count).max() else { return "" }
        var widths = [Int](repeating: 0, count: count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], displayWidth(cell)) } }
        return rows.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : pad(cell, to: widths[i]) }
                .joined(separator: "  ")
        }.joined(separator: "\n")
    }

    static func pad(_ s: String, to width: Int) -> String {
        s + String(repeating: " ", count: max(0, width - displayWidth(s)))
    }

    /// Terminal columns taken by `s`: East Asian wide characters take two.
    static func displayWidth(_ s: String) -> Int {
        s.unicodeScalars.reduce(0) { n, u in
            let v = u.value
            let wide = (0x1100...0x115F).contains(v) || (0x2E80...0xA4CF).contains(v) || (0xAC00...0xD7A3).contains(v)
                || (0xF900...0xFAFF).contains(v) || (0xFE30...0xFE4F).contains(v) || (0xFF00...0xFF60).contains(v)
                || (0xFFE0...0xFFE6).contains(v) || (0x20000...0x3FFFD).contains(v)
            return n + (wide ? 2 : 1)
        }
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }

    /// Metres as people read them: `850 m`, `1.2 km`.
    static func distance(_ metres: Double) -> String {
        metres < 1000 ? "\(Int(metres.rounded())) m" : String(format: "%.1f km", metres / 1000)
    }
}
