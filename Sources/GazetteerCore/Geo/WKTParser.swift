import Foundation

/// A small recursive-descent reader for the two WKT geometries boundaries use.
///
/// Works on UTF-8 bytes for speed (district boundaries have up to ~100k points) and reports
/// errors as character offsets so a user can find the spot in their CSV cell.
package struct WKTParser {
    private let bytes: [UInt8]
    private var pos = 0
    private var ringIndex = 0

    package init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Parses `POLYGON(…)` or `MULTIPOLYGON(…)` into polygons, validating every ring.
    package mutating func parse() throws(GeometryError) -> [Polygon] {
        skipWhitespace()
        guard pos < bytes.count else { throw .empty }
        let keywordStart = pos
        let keyword = readWord()
        let isMulti: Bool
        switch keyword {
        case "POLYGON": isMulti = false
        case "MULTIPOLYGON": isMulti = true
        default: throw syntax(at: keywordStart, expected: "POLYGON or MULTIPOLYGON")
        }
        skipWhitespace()
        if pos < bytes.count, isLetter(bytes[pos]) {
            let wordStart = pos
            guard readWord() == "EMPTY" else {
                throw syntax(at: wordStart, expected: "'(' or EMPTY (only 2-D coordinates are supported)")
            }
            try expectEnd()
            throw .empty
        }

        var polygons: [Polygon] = []
        if isMulti {
            try expect(UInt8(ascii: "("), "'(' to open the list of polygons")
            while true {
                polygons.append(try parsePolygon())
                skipWhitespace()
                if try commaOrClose(what: "another polygon") { break }
            }
        } else {
            polygons.append(try parsePolygon())
        }
        try expectEnd()
        return polygons
    }

    // MARK: - Grammar

    private mutating func parsePolygon() throws(GeometryError) -> Polygon {
        skipWhitespace()
        try expect(UInt8(ascii: "("), "'(' to open a polygon")
        var rings: [[Coordinate]] = []
        while true {
            rings.append(try parseRing())
            skipWhitespace()
            if try commaOrClose(what: "another ring") { break }
        }
        return Polygon(rings: rings)
    }

    private mutating func parseRing() throws(GeometryError) -> [Coordinate] {
        skipWhitespace()
        try expect(UInt8(ascii: "("), "'(' to open a ring")
        var points: [Coordinate] = []
        while true {
            skipWhitespace()
            let longitude = try parseNumber()
            skipWhitespace()
            let latitude = try parseNumber()
            let c = Coordinate(longitude: longitude, latitude: latitude)
            guard c.isValid else { throw .coordinateOutOfRange(c) }
            points.append(c)
            skipWhitespace()
            if try commaOrClose(what: "another point") { break }
        }
        defer { ringIndex += 1 }
        guard points.first == points.last else { throw .ringNotClosed(ring: ringIndex) }
        guard points.count >= 4 else { throw .tooFewPoints(ring: ringIndex, count: points.count) }
        return points
    }

    private mutating func parseNumber() throws(GeometryError) -> Double {
        let start = pos
        while pos < bytes.count, isNumberByte(bytes[pos]) { pos += 1 }
        guard pos > start,
              let value = Double(String(decoding: bytes[start..<pos], as: UTF8.self)) else {
            throw syntax(at: start, expected: "a number")
        }
        return value
    }

    // MARK: - Tokens

    /// Consumes ',' (returns false: the list goes on) or ')' (returns true: the list ended).
    private mutating func commaOrClose(what: String) throws(GeometryError) -> Bool {
        if pos < bytes.count {
            if bytes[pos] == UInt8(ascii: ",") { pos += 1; return false }
            if bytes[pos] == UInt8(ascii: ")") { pos += 1; return true }
        }
        throw syntax(at: pos, expected: "',' before \(what) or ')'")
    }

    private mutating func expect(_ byte: UInt8, _ description: String) throws(GeometryError) {
        guard pos < bytes.count, bytes[pos] == byte else { throw syntax(at: pos, expected: description) }
        pos += 1
    }

    private mutating func expectEnd() throws(GeometryError) {
        skipWhitespace()
        guard pos == bytes.count else { throw syntax(at: pos, expected: "end of input") }
    }

    private mutating func readWord() -> String {
        let start = pos
        while pos < bytes.count, isLetter(bytes[pos]) { pos += 1 }
        return String(decoding: bytes[start..<pos], as: UTF8.self).uppercased()
    }

    private mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case 0x20, 0x09, 0x0A, 0x0D: pos += 1
            default: return
            }
        }
    }

    private func isLetter(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
    }

    private func isNumberByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9"))
            || b == UInt8(ascii: "-") || b == UInt8(ascii: "+") || b == UInt8(ascii: ".")
            || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
    }

    /// Builds a syntax error, converting the byte position into a character offset.
    private func syntax(at byteOffset: Int, expected: String) -> GeometryError {
        let characters = String(decoding: bytes[0..<Swift.min(byteOffset, bytes.count)], as: UTF8.self).count
        return .syntax(offset: characters, expected: expected)
    }
}
