import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.fast)) struct WKTTests {
    @Test func parsesPolygonWithHole() throws {
        let mp = try MultiPolygon(wkt: "POLYGON((0 0, 10 0, 10 10, 0 10, 0 0), (2 2, 4 2, 4 4, 2 4, 2 2))")
        #expect(mp.polygons.count == 1)
        #expect(mp.polygons[0].rings.count == 2)
        #expect(mp.polygons[0].rings[1][2] == coord(4, 4))
        #expect(mp.boundingBox == BoundingBox(minLongitude: 0, minLatitude: 0, maxLongitude: 10, maxLatitude: 10))
    }

    @Test func parsesMultiPolygonCaseAndWhitespaceInsensitively() throws {
        let text = "  multipolygon (\n\t((120.1 30.2,120.2 30.2 , 120.2 30.3,120.1 30.2)) ,\r\n"
            + "( (121 31, 122 31, 122 32, 121 32, 121 31), (121.2 31.2,121.4 31.2,121.4 31.4,121.2 31.2) ) ) "
        let mp = try MultiPolygon(wkt: text)
        #expect(mp.polygons.count == 2)
        #expect(mp.polygons[1].rings.count == 2)
        #expect(mp.polygons[0].rings[0][0] == coord(120.1, 30.2))
        #expect(try MultiPolygon(wkt: "Polygon((-1.5e1 -2,1 -2,1 +3,-15 -2))").polygons[0].rings[0][0] == coord(-15, -2))
    }

    @Test func wktRoundTrips() throws {
        let texts = [
            "POLYGON((0 0,10 0,10 10,0 10,0 0),(2 2,4 2,4 4,2 4,2 2))",
            "MULTIPOLYGON(((116.397428 39.90923,116.5 39.9,116.45 40.1,116.397428 39.90923)),((1 1,2 1,2 2,1 1)))",
        ]
        for text in texts {
            let mp = try MultiPolygon(wkt: text)
            #expect(mp.wkt == text)
            #expect(try MultiPolygon(wkt: mp.wkt) == mp)
        }
        #expect(MultiPolygon(polygons: []).wkt == "MULTIPOLYGON EMPTY")
        let awkward = MultiPolygon(polygons: [Polygon(rings: [[coord(0.1 + 0.2, 1e-7), coord(1, 0), coord(1, 1), coord(0.1 + 0.2, 1e-7)]])])
        #expect(try MultiPolygon(wkt: awkward.wkt) == awkward)
    }

    @Test(arguments: [
        ("", GeometryError.empty),
        ("   ", .empty),
        ("POLYGON EMPTY", .empty),
        ("multipolygon empty", .empty),
        ("POLYGN((0 0,1 0,1 1,0 0))", .syntax(offset: 0, expected: "POLYGON or MULTIPOLYGON")),
        ("POLYGON((0 0,1 0,1 x,0 0))", .syntax(offset: 19, expected: "a number")),
        ("POLYGON((0 0,1 0,1 1,0 0)", .syntax(offset: 25, expected: "',' before another ring or ')'")),
        ("POLYGON((0 0,1 0,1 1,0 0)) extra", .syntax(offset: 27, expected: "end of input")),
        ("POLYGON 0 0,1 0,1 1,0 0", .syntax(offset: 8, expected: "'(' to open a polygon")),
        ("POLYGON Z((0 0 0,1 0 0,1 1 0,0 0 0))", .syntax(offset: 8, expected: "'(' or EMPTY (only 2-D coordinates are supported)")),
        ("POLYGON((0 0 5,1 0,1 1,0 0))", .syntax(offset: 13, expected: "',' before another point or ')'")),
        ("多边形((0 0))", .syntax(offset: 0, expected: "POLYGON or MULTIPOLYGON")),
        ("POLYGON((0 0,1 0,1 1,0 0)),(中 0", .syntax(offset: 26, expected: "end of input")),
        ("POLYGON((0 0,1 0,1 1,0 1))", .ringNotClosed(ring: 0)),
        ("MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((5 5,6 5,6 6,5 5),(5.1 5.1,5.2 5.1,5.2 5.2,5.1 5.2)))", .ringNotClosed(ring: 2)),
        ("POLYGON((0 0,1 1,0 0))", .tooFewPoints(ring: 0, count: 3)),
        ("POLYGON((0 0,10 0,10 10,0 0),(1 1,1 1))", .tooFewPoints(ring: 1, count: 2)),
        ("POLYGON((0 0,1 0,1 91,0 0))", .coordinateOutOfRange(Coordinate(longitude: 1, latitude: 91))),
        ("POLYGON((0 0,1e999 0,1 1,0 0))", .coordinateOutOfRange(Coordinate(longitude: .infinity, latitude: 0))),
        ("POLYGON((39.9 116.4,40 116.4,40 116.5,39.9 116.4))", .coordinateOutOfRange(Coordinate(longitude: 39.9, latitude: 116.4))),
    ])
    func rejectsBadWKT(text: String, expected: GeometryError) {
        #expect(throws: expected) { try MultiPolygon(wkt: text) }
    }

    @Test func errorDescriptionsAreActionable() {
        let swapped = GeometryError.coordinateOutOfRange(coord(39.9, 116.4)).description
        #expect(swapped.contains("swapped"))
        #expect(GeometryError.syntax(offset: 12, expected: "a number").description.contains("character 12"))
        #expect(GeometryError.ringNotClosed(ring: 0).description.contains("Ring 1"))
        #expect(GeometryError.tooFewPoints(ring: 2, count: 3).description.contains("at least 4"))
        #expect(!GeometryError.corrupt("x").description.isEmpty && !GeometryError.empty.description.isEmpty)
    }
}
