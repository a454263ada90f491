import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// The region cells that answer batch reverse geocoding from memory give the exact test's
/// answer, on the seed, for points spread over land, sea and neighbouring countries and for
/// points right beside borders.
@Suite(.tags(.seed), .skippedInFastRuns) struct RegionCellsTests {
    /// Every boundary of the seed gives the same index built straight from its bytes (as a
    /// batch builds it) as from its decoded polygons.
    @Test func everySeedBoundaryIndexesAsItsPolygons() throws {
        let blobs = try SeedDatabase.repository.read { db in
            try db.makeStatement("SELECT code, boundary FROM region WHERE boundary IS NOT NULL").rows([]) { ($0.int64(0), $0.blob(1)) }
        }
        #expect(blobs.count > 3_000)
        for (code, blob) in blobs { EncodingTests.expectSameIndex(blob, "region \(code)") }
    }

    /// Every boundary of the seed read in place (as a batch tests most districts) answers as
    /// its index does, beside every vertex and over its box, with the same area.
    @Test func everySeedBoundaryReadInPlaceAnswersAsItsIndex() throws {
        let blobs = try SeedDatabase.repository.read { db in
            try db.makeStatement("SELECT code, boundary FROM region WHERE boundary IS NOT NULL").rows([]) { ($0.int64(0), $0.blob(1)) }
        }
        #expect(blobs.count > 3_000)
        for (code, blob) in blobs { EncodingTests.expectSameAnswers(blob, "region \(code)") }
    }

    let repo = SeedDatabase.repository

    /// Points uniform in 98–122°E, 22–42°N (a fixed sequence), as GPS traces over China,
    /// its seas and neighbours spread.
    static func boxPoints(_ count: Int) -> [Coordinate] {
        var state: UInt64 = 15
        func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53)
        }
        return (0..<count).map { _ in Coordinate(longitude: 98 + 24 * next(), latitude: 22 + 20 * next()) }
    }

    /// Points a few metres to some hundreds of metres from district boundary vertices, both sides.
    func pointsBesideBorders() throws -> [Coordinate] {
        try repo.read { db in
            let locator = RegionLocator(cache: repo.regions, db: db)
            var points: [Coordinate] = []
            for code in try locator.cache.grid(db).codes.prefix(400) {
                guard let shape = try locator.cache.shape(code, db) else { continue }
                var k = 0
                shape.forEachEdge { x0, y0, _, _ in
                    k += 1
                    guard k % 97 == 0 else { return }
                    let d = [0.00002, 0.0002, 0.0006, 0.001, 0.003][k % 5] * (k % 2 == 0 ? 1 : -1)
                    points.append(Coordinate(longitude: x0 + d, latitude: y0 - d / 2))
                }
            }
            return points
        }
    }

    @Test func cellsGiveTheExactAnswerOrDeferToIt() throws {
        let points = try Self.boxPoints(20_000) + pointsBesideBorders()
        try repo.read { db in
            let locator = RegionLocator(cache: repo.regions, db: db)
            let cells = try #require(try locator.buildCells())
            var known = 0
            for p in points {
                guard case .known(let code) = cells.answer(p) else { continue }
                known += 1
                #expect(code == (try locator.exactDeepest(p)), "\(p)")
            }
            // Most of the box is well inside a district or far from any: those answer at once.
            #expect(known > points.count / 2)
        }
    }

    /// The region grid gives the boxes the region R*Tree finds, deepest level first (then by
    /// code, descending), for a point's box and for wider boxes across its cells.
    @Test func theGridGivesTheRTreesCandidatesInOrder() throws {
        let points = Self.boxPoints(1_500) + (try pointsBesideBorders()).prefix(500)
        try repo.read { db in
            let grid = try RegionGrid(loading: db)
            var found = 0
            for (i, p) in points.enumerated() {
                let b = BoundingBox.around(p, radius: [0.0, 60, 40_000][i % 3])
                let rows = try rtreeRows(db, "region_rtree", "id, level", meeting: b) { (code: $0.int64(0), level: $0.int(1)) }
                    .sorted { ($0.level, $0.code) > ($1.level, $1.code) }
                #expect(grid.candidates(b).map(\.code) == rows.map(\.code), "point \(i)")
                if i % 3 == 0 {
                    var each: [Int64] = []
                    grid.forEachCandidate(at: p) { _, code, _ in each.append(code); return true }
                    #expect(each == rows.map(\.code), "point \(i)")
                }
                found += rows.count
            }
            #expect(found > 2_000)
        }
    }

    @Test func boundedDistanceIsTheDistanceWithinTheLimit() throws {
        let points = try pointsBesideBorders()
        try repo.read { db in
            var near = 0
            for (i, p) in points.enumerated() {
                let codes = try repo.regions.candidates(BoundingBox.around(p, radius: 200), db)
                guard let code = codes.first?.code, let shape = try repo.regions.shape(code, db) else { continue }
                let limit = [10.0, 60, 150][i % 3]
                let exact = shape.distanceToBoundary(from: p)
                let bounded = shape.distanceToBoundary(from: p, within: limit)
                if exact <= limit {
                    near += 1
                    #expect(bounded == exact, "\(p)")
                } else {
                    #expect(bounded == .infinity, "\(p)")
                }
            }
            #expect(near > 50)
        }
    }

    /// Enough points for the batch to build the cells, compared with lone queries.
    @Test func batchWithRegionCellsAnswersAsSingleQueries() throws {
        let points = Self.boxPoints(RegionCache.regionCellsAfter + 6_000)
        var answered = 0
        repo.reverseGeocode(points, radius: 0) { i, result in
            answered += 1
            let single = try? repo.reverseGeocode(points[i], radius: 0)
            #expect((try? result.get()) == single, "point \(i)")
        }
        #expect(answered == points.count)
    }
}
