import Foundation
@testable import GazetteerCore

/// One of the geocoding suites in `Fixtures/GeocodeSuites/` (other projects' own test cases,
/// sources in its README.md), scored as `Scripts/geocode_suites.py` scores them, so the floors
/// here and the figures that script prints are the same figures.
struct GeocodeSuite {
    enum Level: String, CaseIterable, Sendable { case province, city, district, town }

    /// One case: the address and the names its source expects; an empty name is not stated.
    struct Case {
        var address: String
        var expected: [Level: String]
    }

    let name: String
    let cases: [Case]

    /// Reads `Fixtures/GeocodeSuites/<name>.tsv` (address, province, city, district, town).
    init(_ name: String) throws {
        self.name = name
        let path = FixtureFile.path("GeocodeSuites/\(name).tsv")
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").dropFirst()
        cases = lines.map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            var expected: [Level: String] = [:]
            for (i, level) in Level.allCases.enumerated() where i + 1 < f.count && !f[i + 1].isEmpty {
                expected[level] = f[i + 1]
            }
            return Case(address: f[0], expected: GeocodeSuite.canonical(expected, stated: true))
        }
    }

    static let municipalities: Set<String> = ["北京市", "天津市", "上海市", "重庆市"]
    static let placeholderCities: Set<String> = ["", "市辖区", "县", "重庆城区", "重庆郊县", "省直辖县级行政区划",
                                                 "自治区直辖县级行政区划", "省直辖县", "直辖县级"]

    /// A municipality is its own city; a county under the province (仙桃市) stands for its city.
    /// An expected empty city stays empty: the source states none.
    static func canonical(_ names: [Level: String], stated: Bool = false) -> [Level: String] {
        var n = names
        let city = n[.city] ?? ""
        if stated && city.isEmpty { return n }
        if let p = n[.province], municipalities.contains(p), placeholderCities.contains(city) || city == p {
            n[.city] = p
        } else if placeholderCities.contains(city), n[.province] != nil, let d = n[.district] {
            n[.city] = d
        }
        return n
    }

    static let suffixes = ["特别行政区", "维吾尔自治区", "壮族自治区", "回族自治区", "自治区", "自治州", "自治县", "自治旗",
                           "办事处", "街道", "地区", "省", "市", "区", "县", "镇", "乡", "旗", "盟"]

    static func stem(_ name: String) -> String {
        for suffix in suffixes where name.hasSuffix(suffix) && name.count > suffix.count + 1 {
            return String(name.dropLast(suffix.count))
        }
        return name
    }

    /// Same name, or the same but for the level suffix (上虞市 ~ 上虞区: upgraded since the text was
    /// written), or the expected short form the answer starts with (义乌 ~ 义乌市), or an expected
    /// span that ends with the answer (广元昭化区 ~ 昭化区: the span took in the text before it).
    static func matches(expected: String, got: String?) -> Bool {
        guard let got, !got.isEmpty else { return false }
        let e = stem(expected), g = stem(got)
        return got == expected || e == g || (e.count >= 2 && g.hasPrefix(e)) || (g.count >= 2 && e.hasSuffix(g))
    }

    /// Per level: (cases that state it, cases answered right), the answers in the suite's order.
    func score(_ answers: [Geocode?]) -> [Level: (cases: Int, right: Int)] {
        var result: [Level: (cases: Int, right: Int)] = [:]
        for (c, g) in zip(cases, answers) {
            var got: [Level: String] = [:]
            got[.province] = g?.province?.name
            got[.city] = g?.city?.name
            got[.district] = g?.district?.name
            got[.town] = g?.town?.name
            got = GeocodeSuite.canonical(got)
            for (level, expected) in c.expected {
                var r = result[level] ?? (0, 0)
                r.cases += 1
                if GeocodeSuite.matches(expected: expected, got: got[level]) { r.right += 1 }
                result[level] = r
            }
        }
        return result
    }
}
