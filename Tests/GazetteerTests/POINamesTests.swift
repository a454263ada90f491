import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerQuery
@testable import GazetteerSQLite

/// A geocoding batch asks its POI-name questions of `POINames` in memory: every answer must be
/// the one the `poi_name` index gives, on names built to sit at the edges of SQLite's text
/// order and of its `substr`/`length`, and on the seed's names.
@Suite(.tags(.fast)) struct POINamesTests {
    let file = TemporaryDatabase()

    /// A `poi` table (the schema's columns the questions read) holding `rows` (name, adcode).
    func database(_ rows: [(String, SQLiteValue)]) throws -> Connection {
        let db = try Connection(path: file.path, mode: .readWrite)
        try db.execute("CREATE TABLE poi (rowid INTEGER PRIMARY KEY, name TEXT NOT NULL, adcode INTEGER); CREATE INDEX poi_name ON poi (name)")
        let insert = try db.cachedStatement("INSERT INTO poi (name, adcode) VALUES (?, ?)")
        for (name, adcode) in rows { try insert.run([.text(name), adcode]) }
        return db
    }

    static let edgeNames: [(String, SQLiteValue)] = [
        ("南京大学", .integer(320102)), ("南京大学", .null), ("南京大学", .integer(320104)),
        ("南京大学(鼓楼校区)", .integer(320106)), ("南京大学（仙林校区）", .integer(320113)), ("南京大学金陵学院", .integer(320102)),
        ("南京大学城", .null), ("南京大学x", .integer(320102)), ("南京大学\u{10FFFF}", .integer(320102)), ("南京大学\u{10FFFF}店", .null),
        ("南京", .integer(320100)), ("南", .integer(320000)), ("𠀀字店", .integer(110101)), ("𠀀", .null), ("A", .null), ("AB(", .integer(1)),
        ("ab", .integer(2)), ("é咖啡", .integer(3)), ("e\u{301}咖啡", .integer(4)), ("", .integer(5)), ("（", .null), ("店(", .integer(6)),
    ]

    /// Every start of every name, each name with more after it, and strings no name has.
    static func questions(_ names: [String]) -> [String] {
        var out: Set<String> = ["", "Z", "南京大学金", "南京大学(", "南京大学（", "\u{10FFFF}", "南京大\u{10FFFF}", "南京\u{0}", "\u{0}"]
        for name in names {
            let scalars = Array(name.unicodeScalars)
            for k in 0...scalars.count { out.insert(String(String.UnicodeScalarView(scalars[..<k]))) }
            out.insert(name + "路1号")
        }
        return out.sorted()
    }

    func expectSameAnswers(_ db: Connection, _ questions: [String]) throws {
        let loaded = try #require(try POINames(loading: db))
        let memory = POINameQueries(names: loaded, db: db), sql = POINameQueries(names: nil, db: db)
        let ranges: [ClosedRange<Int64>?] = [nil, 320100...320199, 320102...320102, 0...9, 110000...119999]
        for q in questions {
            let n = q.unicodeScalars.count, scalars = Array(q.unicodeScalars)[...]
            #expect(try memory.some(startingWith: scalars) == sql.some(startingWith: scalars), "some \(q)")
            for low in [scalars.prefix(2), scalars.prefix(1), scalars.prefix(max(0, n - 1))] {
                #expect(try memory.greatest(atMost: scalars, atLeast: low) == sql.greatest(atMost: scalars, atLeast: low), "greatest \(q)")
            }
            for r in ranges {
                #expect(try memory.firstRowid(named: q, adcodes: r) == sql.firstRowid(named: q, adcodes: r), "named \(q) \(String(describing: r))")
                for after in [n, max(0, n - 1), n + 1] {
                    #expect(try memory.firstLonger(startingWith: scalars, after: after, adcodes: r) == sql.firstLonger(startingWith: scalars, after: after, adcodes: r),
                            "longer \(q) after \(after) \(String(describing: r))")
                }
            }
        }
    }

    @Test func answersAreSQLsOnEdgeNames() throws {
        let db = try database(Self.edgeNames)
        let questions = Self.questions(Self.edgeNames.map(\.0))
        try expectSameAnswers(db, questions)
        // The questions reach every kind of answer.
        let memory = POINameQueries(names: try POINames(loading: db), db: db)
        let nanda = Array("南京大学".unicodeScalars)[...]
        #expect(try memory.firstLonger(startingWith: nanda, after: 4, adcodes: nil) == 4)  // the half-width bracket's branch
        #expect(try memory.firstLonger(startingWith: nanda, after: 4, adcodes: 320113...320113) == 5)
        #expect(try memory.firstRowid(named: "南京大学", adcodes: 320104...320104) == 3)
        #expect(try memory.firstRowid(named: "南京大学", adcodes: nil) == 1)
        #expect(try memory.greatest(atMost: Array("南京大学城东路".unicodeScalars)[...], atLeast: Array("南京".unicodeScalars)[...]) == "南京大学城")
    }

    /// Rows that memory would not compare as SQL does are refused: the questions stay with SQL.
    @Test func oddRowsAreNotLoaded() throws {
        for odd: SQLiteValue in [.text("abc"), .real(320102.5), .blob([1])] {
            let db = try database(Self.edgeNames + [("南京路", odd)])
            #expect(try POINames(loading: db) == nil, "adcode \(odd)")
            try db.execute("DROP TABLE poi")
        }
        let db = try database(Self.edgeNames + [("南京\u{0}路", .null)])
        #expect(try POINames(loading: db) == nil, "a name holding a NUL")
        try db.execute("DELETE FROM poi WHERE rowid = (SELECT max(rowid) FROM poi)")
        try db.execute("INSERT INTO poi (name, adcode) VALUES (CAST(X'E58D97FF' AS TEXT), NULL)")  // not UTF-8
        try expectSameAnswers(db, Self.questions(Self.edgeNames.map(\.0)) + ["南"])
    }

    /// A database in UTF-16 orders text by other bytes: its names are not loaded.
    @Test func aUTF16DatabaseIsNotLoaded() throws {
        let db = try Connection(path: file.path, mode: .readWrite)
        try db.execute("PRAGMA encoding = 'UTF-16le'; CREATE TABLE poi (rowid INTEGER PRIMARY KEY, name TEXT NOT NULL, adcode INTEGER)")
        try db.execute("INSERT INTO poi (name, adcode) VALUES ('南京大学', 320102)")
        #expect(try POINames(loading: db) == nil)
    }

    @Test(.tags(.seed)) func answersAreSQLsOnTheSeed() throws {
        try SeedDatabase.repository.read { db in
            let names = try db.cachedStatement("SELECT name FROM poi WHERE rowid % 97 = 0").rows { $0.text(0) }
            #expect(names.count > 50)
            try expectSameAnswers(db, Self.questions(names))
        }
    }
}
