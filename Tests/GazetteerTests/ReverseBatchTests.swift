import Foundation
import Testing
@testable import Gazetteer

/// The batch entry points give what the one-at-a-time ones give.
@Suite struct ReverseBatchTests {
    let repo = SeedDatabase.repository

    static let points: [Coordinate] = [
        Coordinate(longitude: 116.397477, latitude: 39.908692),
        Coordinate(longitude: 116.3107, latitude: 39.992591),
        Coordinate(longitude: 121.4737, latitude: 31.2304),
        Coordinate(longitude: 120.1551, latitude: 30.2741),
        Coordinate(longitude: 0, latitude: 0),
        Coordinate(longitude: 39.9, latitude: 116.4),  // invalid: swapped
        Coordinate(longitude: .nan, latitude: 30),  // invalid
        Coordinate(longitude: 113.75, latitude: 23.02),
        Coordinate(longitude: 91.1, latitude: 29.65),
    ]

    @Test(arguments: [0.0, 1000, 5000, -1])
    func batchAnswersAsSingleQueries(radius: Double) {
        for system in CoordinateSystem.allCases {
            var seen: [Int] = []
            repo.reverseGeocode(Self.points, system: system, radius: radius, poiLimit: 5) { i, result in
                seen.append(i)
                let single = Result { () throws(GazetteerError) in
                    try repo.reverseGeocode(Self.points[i], system: system, radius: radius, poiLimit: 5)
                }
                switch (result, single) {
                case (.success(let a), .success(let b)): #expect(a == b)
                case (.failure(let a), .failure(let b)): #expect("\(a)" == "\(b)")
                default: Issue.record("point \(i), radius \(radius): batch \(result), single \(single)")
                }
            }
            #expect(seen == Array(Self.points.indices))
        }
    }

    @Test func emptyBatchCallsNothing() {
        repo.reverseGeocode([], radius: 0) { _, _ in Issue.record("called") }
    }

    @Test(arguments: [
        "116.397477,39.908692", " 116.397477 , 39.908692 ", "\t116.4\t,\t39.9", "1e2,3e1", "+116.3,-0.0",
        "116.3,39.9,1", "", ",", "abc", "116.4，39.9", "39.9,116.4", "200,10", "nan,nan", "0x1p7,30",
        "116.3 1,39.9", "12.3.4,5", "..,1", "-,-", "116.3,", ",39.9", "1e999,1", "116.39747712345678901234,39.9",
        "116.3\r,39.9", "116.3,39.9\u{0}", "116.3,39.9e",
    ])
    func plainBytesParseAsText(text: String) {
        let fast = Array(text.utf8).withUnsafeBufferPointer { Coordinate(parsingPlainUTF8: $0) }
        let slow = try? Coordinate(parsing: text)
        if let fast {
            #expect(fast == slow)
        }
        let plain = text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D && $0 != 0 }
        if plain && slow != nil { #expect(fast != nil) }
    }
}
