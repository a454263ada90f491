import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerAMap
@testable import GazetteerCore
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// `reverse --batch` without POIs answers most points with their address's line
/// (`Repository.placeBatch`, `RegeoLines`): the lines must be the ones a lone query gives,
/// byte for byte, inside districts, beside borders, at sea, abroad and beside POIs.
@Suite(.tags(.seed), .skippedInFastRuns) struct PlaceBatchTests {
    let repo = SeedDatabase.repository

    /// Interior, border, sea, abroad and near-POI points, with the cells built as a large batch builds them.
    func points() throws -> [Coordinate] {
        let pois = try repo.read { db in
            try db.cachedStatement("SELECT lng, lat FROM poi ORDER BY rowid LIMIT 600").rows {
                Coordinate(longitude: $0.double(0), latitude: $0.double(1))
            }
        }
        let nearPOIs = pois.enumerated().map { i, c in
            Coordinate(longitude: c.longitude + [0, 0.0004, 0.002][i % 3], latitude: c.latitude - [0, 0.0003, 0.001][i % 3])
        }
        return RegionCellsTests.boxPoints(3_000) + (try RegionCellsTests().pointsBesideBorders()).prefix(2_000) + nearPOIs
            + [Coordinate(longitude: 116.397477, latitude: 39.908692), Coordinate(longitude: 0, latitude: 0),
               Coordinate(longitude: 39.9, latitude: 116.4), Coordinate(longitude: -0.0, latitude: 30.1234567)]
    }

    /// The JSON lines of `placeBatch`, one per point (an error as its message).
    func placedLines(_ points: [Coordinate], system: CoordinateSystem, limit: Int) -> [String] {
        Self.placedLines(repo, points, system: system, limit: limit)
    }

    /// The JSON lines of `placeBatch` on `repo`, one per point (an error as its message), with
    /// the lines kept in `shared` when given, as a batch thread keeps them.
    static func placedLines(_ repo: Repository, _ points: [Coordinate], system: CoordinateSystem, limit: Int,
                            sharing shared: SharedRegeoLines? = nil) -> [String] {
        let places = ReverseBatchPlaces(system: system)
        let lines = RegeoLines(sharing: shared)
        var out: [String] = []
        // Twice, in two transactions, as blocks of a batch come: the second reuses what the first learnt.
        for half in [points[..<(points.count / 2)], points[(points.count / 2)...]] {
            let part = Array(half)
            repo.placeBatch(part, radius: limit == 0 ? 1000 : 0, poiLimit: limit, into: places) { k, place in
                var bytes: [UInt8] = []
                switch place {
                case .key(let key):
                    var spliced = SplicedOutput()
                    lines.write(key, at: part[k], places: places, into: &spliced)
                    bytes = spliced.joined
                case .answer(.success(let answer)):
                    AMapShape.writeRegeo(answer, all: true, into: &bytes)
                    bytes.append(0x0A)
                case .answer(.failure(let error)): bytes = Array("\(error)\n".utf8)
                }
                out.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        return out
    }

    @Test func batchLinesAreTheLoneQueriesLines() throws {
        let points = try points()
        repo.prepareBatch(RegionCache.regionCellsAfter)
        for (system, limit) in [(CoordinateSystem.gcj02, 20), (.gcj02, 0), (.wgs84, 20)] {
            let radius = limit == 0 ? 1000.0 : 0
            let batch = placedLines(points, system: system, limit: limit)
            #expect(batch.count == points.count)
            var towns = 0, empty = 0
            for (i, p) in points.enumerated() where i < batch.count {
                var lone: [UInt8] = []
                do {
                    let answer = try repo.reverseGeocode(p, system: system, radius: radius, poiLimit: limit)
                    if answer.address.town != nil { towns += 1 }
                    if answer.address.isEmpty { empty += 1 }
                    AMapShape.writeRegeo(answer, all: true, into: &lone)
                    lone.append(0x0A)
                } catch {
                    lone = Array("\(error)\n".utf8)
                }
                #expect(batch[i] == String(decoding: lone, as: UTF8.self), "\(system) point \(i): \(p)")
            }
            // The points reach every kind of answer: with a town, without one, and none at all.
            #expect(towns > 100)
            #expect(empty > 100)
        }
    }

    /// `reverse --batch`'s threads keep their lines in one `SharedRegeoLines`, each with keys
    /// of its own: a line one thread made serves the other's points of that address, byte for
    /// byte, and is made once.
    @Test func threadsSharingLinesWriteTheirOwnLines() throws {
        let points = try points()
        repo.prepareBatch(RegionCache.regionCellsAfter)
        let alone = placedLines(points, system: .gcj02, limit: 0)
        let shared = SharedRegeoLines()
        // The second thread meets the addresses in the other order, so its keys differ.
        #expect(Self.placedLines(repo, points, system: .gcj02, limit: 0, sharing: shared) == alone)
        let made = shared.count
        #expect(made > 100)
        #expect(Self.placedLines(repo, points.reversed(), system: .gcj02, limit: 0, sharing: shared) == alone.reversed())
        #expect(shared.count == made)
        // Another coordinate system's lines are its own.
        #expect(Self.placedLines(repo, points, system: .wgs84, limit: 0, sharing: shared)
                == placedLines(points, system: .wgs84, limit: 0))
    }

    /// A large batch reads every district's towns in one scan of the region table, or from the
    /// stored rows once it has read them (`noteTownBatch`): each district's towns, their order
    /// and count must be those its own queries give, or a point would name another town.
    @Test func aBatchsTownListsAreEachDistrictsOwn() throws {
        try repo.read { db in
            let parents = try db.makeStatement("SELECT DISTINCT parent FROM region WHERE level = 3 AND parent IS NOT NULL")
                .rows([]) { $0.int64(0) }
            #expect(parents.count > 2_000)
            let scanned = RegionCache()
            scanned.noteTownBatch(RegionCache.regionCellsAfter, db)
            // Made from the stored rows, as a batch that has read them makes them.
            let fromRows = RegionCache()
            fromRows.noteRowsBatch(RegionCache.regionCellsAfter, db)
            #expect(fromRows.rows(db) != nil)
            fromRows.noteTownBatch(RegionCache.regionCellsAfter, db)
            let queried = RegionCache()
            for parent in parents + [0, 110_000, 110_101_001] {
                let b = try queried.towns(under: parent, db)
                for (how, cache) in [("scanned", scanned), ("from rows", fromRows)] {
                    let a = try cache.towns(under: parent, db)
                    #expect(a.centres.map(\.code) == b.centres.map(\.code), "towns of \(parent), \(how)")
                    #expect(a.centres.map(\.center) == b.centres.map(\.center), "centres of \(parent), \(how)")
                    #expect(a.reach == b.reach && a.complete == b.complete, "reach of \(parent), \(how)")
                }
            }
        }
    }

    @Test(arguments: [
        116.397477, -116.397477, 0, -0.0, 0.5, 39.9, 180, -180, 1e-7, -1e-7, 0.0000005, 0.0078125,
        116.3974775, 116.39747712345, 121.1234565, 1e-5, 22.000001, 99.999999, 123456.789,
    ])
    func locationBytesAreTheLocationText(x: Double) {
        let c = Coordinate(longitude: x, latitude: -x / 2)
        var bytes: [UInt8] = []
        AMapShape.writeLocation(c, into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == AMapShape.location(c))
    }

    @Test func locationBytesOfSixDecimalPoints() {
        var state: UInt64 = 7
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let lng = Double(Int64(state >> 20) % 360_000_000 - 180_000_000) / 1e6
            let lat = Double(Int64(state >> 30) % 1_000_000) / 1e4 - 50
            let c = Coordinate(longitude: lng, latitude: lat)
            var bytes: [UInt8] = []
            AMapShape.writeLocation(c, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == AMapShape.location(c))
        }
    }

    /// The byte parser's Doubles are `Double(text)`'s (strtod's), to the bit: -0 included.
    @Test func parsedBytesAreTheParsersDoubles() {
        var state: UInt64 = 3
        var texts = ["-0,0", "-0.0,-0.000", "0,0", "116,40", "-116.5,-40.25", "180.000000,90", "1.23456789012345,1.5",
                     "116.1234567890123456,39.9", "9.999999999999999,0.1", "0.000001,0.000009", "00116.40,039.900"]
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let decimals = Int(state >> 60) % 12
            let lng = Double(Int64(state >> 16) % 360_000_000_000 - 180_000_000_000) / 1e9
            let lat = Double(Int64(state >> 24) % 180_000_000 - 90_000_000) / 1e6
            texts.append(String(format: "%.\(decimals)f,%.\(max(0, 12 - decimals))f", lng, lat))
        }
        for text in texts {
            guard let c = Array(text.utf8).withUnsafeBufferPointer({ Coordinate(parsingPlainUTF8: $0) }) else {
                #expect((try? Coordinate(parsing: text)) == nil, "\(text)")
                continue
            }
            let parts = text.split(separator: ",").map { Double(String($0))! }
            #expect(c.longitude.bitPattern == parts[0].bitPattern && c.latitude.bitPattern == parts[1].bitPattern, "\(text)")
        }
    }

    @Test func rtreeLeavesAreTheVirtualTablesRows() throws {
        try repo.read { db in
            var fromNodes: [[Float]] = []
            #expect(try RTreeLeaves.forEachBox(db, table: "poi_rtree") { fromNodes.append([$0, $1, $2, $3]) })
            let rows = try db.makeStatement("SELECT min_lng, max_lng, min_lat, max_lat FROM poi_rtree").rows { s in
                (0..<4).map { Float(s.double(Int32($0))) }
            }
            #expect(rows.count > 1000)
            func order(_ a: [Float], _ b: [Float]) -> Bool { a.lexicographicallyPrecedes(b) }
            #expect(fromNodes.sorted(by: order) == rows.sorted(by: order))
        }
    }
}
