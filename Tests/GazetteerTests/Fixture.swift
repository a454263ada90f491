import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

/// A temporary folder of CSV fixtures and a database beside them.
final class Fixture {
    let directory: URL
    let database: String

    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-fixture-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        database = directory.appendingPathComponent("test.sqlite").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Data(text.utf8)) }

    @discardableResult
    func write(_ name: String, _ data: Data) -> String {
        let url = directory.appendingPathComponent(name)
        try! data.write(to: url)
        return url.path
    }

    func importer() throws -> Importer { try Importer(path: database) }

    @discardableResult
    func run(_ files: [String], _ configure: (inout ImportOptions) -> Void = { _ in }) throws -> ImportSummary {
        var options = ImportOptions()
        configure(&options)
        return try importer().importFiles(files, options: options)
    }

    /// Everything a user could observe in the database, to compare before and after.
    func snapshot() throws -> [String] {
        let db = try Connection(path: database, mode: .readOnly)
        var lines: [String] = []
        for sql in [
            "SELECT code, parent, level, name, short_name, pinyin, lng, lat, min_lng, max_lat, hex(boundary) FROM region ORDER BY code",
            "SELECT rowid, id, name, type, typecode, address, lng, lat, adcode, towncode FROM poi ORDER BY rowid",
            "SELECT id, min_lng, max_lat FROM region_rtree ORDER BY id",
            "SELECT id, lng, lat FROM poi_rtree ORDER BY id",
            "SELECT key, value FROM meta WHERE key <> 'imported_at' ORDER BY key",
            "SELECT kind, generation, hex(data) FROM batch_cells ORDER BY kind",
            "SELECT kind, generation, hex(data) FROM geocode_names ORDER BY kind",
            "SELECT count(*) FROM region_fts WHERE region_fts MATCH 'chars : \"西\"'",
            "SELECT count(*) FROM poi_fts WHERE poi_fts MATCH 'grams : \"大学\"'",
        ] {
            let s = try db.cachedStatement(sql)
            lines += try s.rows { row in (0..<row.columnCount).map { "\(row.value($0))" }.joined(separator: "|") }
        }
        return lines
    }

    static let regions = """
        code,parent,level,name,short_name,pinyin,lng,lat,center_approx
        330000,,province,浙江省,浙江,zhe jiang,120.15,30.27,0
        330100,330000,city,杭州市,杭州,hang zhou,120.21,30.25,0
        330106,330100,district,西湖区,西湖,xi hu,120.13,30.26,0
        330106003000,330106,town,灵隐街道,灵隐,ling yin,120.12,30.25,1
        110000,,province,北京市,北京,bei jing,116.40,39.90,0
        110101,110000,district,东城区,东城,dong cheng,116.42,39.93,0

        """

    static let boundaries = """
        code,geometry
        330106,"POLYGON((120.0 30.1,120.3 30.1,120.3 30.4,120.0 30.4,120.0 30.1))"
        110101,"MULTIPOLYGON(((116.38 39.86,116.45 39.86,116.45 39.97,116.38 39.97,116.38 39.86)))"

        """

    static let pois = """
        id,name,type,typecode,address,phone,lng,lat,adcode,towncode
        p1,浙江大学(玉泉校区),科教文化服务;学校;高等院校,141201,西湖区浙大路38号,,120.123,30.265,330106,330106003000
        p2,灵隐寺,风景名胜;风景名胜;寺庙道观,110205,"法云弄1号, 灵隐",0571-1234,120.101,30.241,330106,
        p3,故宫博物院,科教文化服务;博物馆;博物馆,140100,,,116.397,39.918,110101,

        """
}
