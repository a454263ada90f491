import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// The batch entry points give what the one-at-a-time ones give.
@Suite(.tags(.seed), .skippedInFastRuns) struct ReverseBatchTests {
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

    /// Points near and far from POIs, enough of them for the batch to load the POI cells.
    func pointsAroundPOIs() throws -> [Coordinate] {
        let pois = try repo.read { db in
            try db.cachedStatement("SELECT lng, lat FROM poi ORDER BY rowid LIMIT 1500").rows { Coordinate(longitude: $0.double(0), latitude: $0.double(1)) }
        }
        var points: [Coordinate] = []
        for (i, c) in pois.enumerated() {
            let d = [0.0, 0.0003, 0.0009, 0.004, 0.02][i % 5] * (i % 2 == 0 ? 1 : -1)
            points.append(Coordinate(longitude: c.longitude + d, latitude: c.latitude - d / 2))
        }
        return points
    }

    @Test(arguments: [0.0, 150])
    func batchWithPOICellsAnswersAsSingleQueries(radius: Double) throws {
        let points = try pointsAroundPOIs()
        #expect(points.count >= 1000)
        var answered = 0
        repo.reverseGeocode(points, radius: radius, poiLimit: 3) { i, result in
            answered += 1
            let single = try? repo.reverseGeocode(points[i], radius: radius, poiLimit: 3)
            #expect(single != nil, "point \(i): every point is valid")
            #expect((try? result.get()) == single, "point \(i)")
        }
        #expect(answered == points.count)
    }

    @Test func poiCellsNeverMissABoxTheRTreeFinds() throws {
        let points = try pointsAroundPOIs()
        try repo.read { db in
            let cells = try POICells(loading: db)
            var empty = 0
            for (i, p) in points.enumerated() {
                let b = BoundingBox.around(p, radius: [1.0, 100, 1000][i % 3])
                let n = try rtreeRows(db, "poi_rtree", "count(*)", meeting: b) { $0.int(0) }.first ?? 0
                if n > 0 { #expect(cells.mayHold(b), "point \(i)") } else if !cells.mayHold(b) { empty += 1 }
            }
            #expect(empty > 0)  // the cells do rule some boxes out
        }
    }

    /// `nothingNear` never says so where `mayHold` would find a POI's box, and says so for most
    /// points far from POIs (points around POIs and over the whole box, at the reaches asked).
    @Test func poiCellsSayNothingNearOnlyWhereTheBoxHoldsNone() throws {
        let points = try pointsAroundPOIs() + RegionCellsTests.boxPoints(3_000)
        try repo.read { db in
            let cells = try POICells(loading: db)
            var nothing = 0
            for (i, p) in points.enumerated() {
                let metres = [1.0, 102, 1000][i % 3]
                if cells.nothingNear(p, metres: metres) {
                    nothing += 1
                    #expect(!cells.mayHold(BoundingBox.around(p, radius: metres)), "point \(i)")
                }
            }
            #expect(nothing > 1_000)
        }
    }

    /// Loaded in pieces (as on every core for a million POIs), the cells are the ones a single
    /// pass makes: the same bits, and each block's POIs in the same order.
    @Test func poiCellsAreTheSameInAnyNumberOfPieces() throws {
        try repo.read { db in
            let whole = try POICells(loading: db, pieces: 1)
            #expect(whole.mayHold(BoundingBox.around(Coordinate(longitude: 116.397477, latitude: 39.908692), radius: 2_000)))
            for pieces in [2, 3, 8] { #expect(try POICells(loading: db, pieces: pieces) == whole, "\(pieces) pieces") }
        }
    }

    @Test func poiCellsListTheRowsTheRTreeFinds() throws {
        let points = try pointsAroundPOIs()
        try repo.read { db in
            let cells = try POICells(loading: db)
            var found = 0
            for (i, p) in points.enumerated() {
                let b = BoundingBox.around(p, radius: [1.0, 102, 1000][i % 3])
                let rows = try rtreeRows(db, "poi_rtree", "id, min_lng, min_lat", meeting: b) { "\($0.int64(0)) \($0.double(1)) \($0.double(2))" }
                var listed: [String] = []
                #expect(cells.forEachPOI(meeting: b) { listed.append("\($0) \($1) \($2)") }, "point \(i)")
                #expect(listed.sorted() == rows.sorted(), "point \(i)")
                found += rows.count
            }
            #expect(found > 100)  // the boxes do hold POIs
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
        // The one-pass form's edges: a point without decimals, leading zeros, 15 and 16 digits, -0.
        "116.,39.9", "0116.50,039.25\t", "-116.5,-39.25", "116.397477123456,39.9", "116.3974771234567,39.9",
        " -0 , -0.000 ", "116,40", "116.3,,39.9", "116.3,39.9 x", "116-3,39.9",
    ])
    func plainBytesParseAsText(text: String) {
        let fast = Array(text.utf8).withUnsafeBufferPointer { Coordinate(parsingPlainUTF8: $0) }
        let slow = try? Coordinate(parsing: text)
        if let fast {
            #expect(fast == slow)
            #expect(fast.longitude.sign == slow?.longitude.sign && fast.latitude.sign == slow?.latitude.sign)
        }
        let plain = text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D && $0 != 0 }
        if plain && slow != nil { #expect(fast != nil) }
    }
}
