import Foundation
import Testing
@testable import GazetteerCore
@testable import GazetteerQuery

/// Other projects' own test cases (Fixtures/GeocodeSuites, sources in its README.md) through
/// `Repository.geocode(_ addresses:)`: per level, the share answered right may not fall below
/// the floor measured when the floor was set (rounded down by a point). Raise a floor when the
/// geocoder gets better; `Scripts/geocode_suites.py` prints the same figures beside other parsers.
@Suite(.tags(.seed), .skippedInFastRuns) struct GeocodeSuiteTests {
    let repo = SeedDatabase.repository

    /// Percent right per suite and level.
    static let floors: [String: [GeocodeSuite.Level: Double]] = [
        "akebe-address-parse": [.province: 99, .city: 99, .district: 99],
        "bitlap-geocoding": [.province: 99, .city: 99, .district: 99, .town: 92],
        "cpca-addressparser": [.province: 99, .city: 99, .district: 89],
        "go-parsers": [.province: 99, .city: 99, .district: 99],
        "jionlp": [.province: 99, .city: 99, .district: 99, .town: 99],
        "nca-dev": [.province: 98.5, .city: 98.5, .district: 88.5, .town: 84.5],
        "nca-test": [.province: 98.5, .city: 98.5, .district: 89.5, .town: 84.5],
        "zh-address-parse-java": [.province: 99, .city: 99, .district: 99, .town: 90],
    ]

    @Test(arguments: floors.keys.sorted())
    func accuracyPerLevelStaysAtLeastTheFloor(_ name: String) throws {
        let suite = try GeocodeSuite(name)
        try #require(!suite.cases.isEmpty, "\(name): no cases")
        let answers = repo.geocode(suite.cases.map(\.address)).map { (try? $0.get()) ?? nil }
        let score = suite.score(answers)
        for level in GeocodeSuite.Level.allCases {
            guard let s = score[level], let floor = GeocodeSuiteTests.floors[name]?[level] else { continue }
            let percent = 100 * Double(s.right) / Double(s.cases)
            print("\(name) \(level.rawValue): \(s.right)/\(s.cases) = \(String(format: "%.1f", percent))% (floor \(floor)%)")
            #expect(percent >= floor, "\(name) \(level.rawValue): \(String(format: "%.1f", percent))% < floor \(floor)%")
        }
    }
}
