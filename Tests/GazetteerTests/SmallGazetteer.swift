import Foundation
import Gazetteer

/// A tiny hand-made gazetteer, built from CSV rows written here and imported with `Importer`,
/// so the parsing and ranking rules can be pinned on data whose every answer is known.
///
/// Codes and names are made up (91/92 are no real provinces). Districts are 0.5° squares side
/// by side along 30.0–30.5° N; only districts have boundaries; towns have approximate centres.
///
///     东海省 910000
///       青山市 910100
///         白沙区 910102   [100.0, 100.5]   towns 石桥镇 (centre 100.10, 30.10), 柳林街道 (100.40, 30.40)
///         新城区 910103   [100.5, 101.0]
///       云港市 910200
///         新城区 910202   [101.0, 101.5]   town 海湾街道 (101.03, 30.20)   (namesake of 910103)
///         白沙区 910203   [101.5, 102.0]   no towns                        (namesake of 910102)
///     南岭省 920000
///       金川市 920100
///         河口区 920102   [102.0, 102.5]
enum SmallGazetteer {
    static let regions = """
        code,parent,level,name,short_name,pinyin,lng,lat,center_approx
        910000,,province,东海省,东海,dong hai,100.5,30.25,0
        910100,910000,city,青山市,青山,qing shan,100.5,30.25,0
        910102,910100,district,白沙区,白沙,bai sha,100.25,30.25,0
        910102001000,910102,town,石桥镇,石桥,shi qiao,100.10,30.10,1
        910102002000,910102,town,柳林街道,柳林,liu lin,100.40,30.40,1
        910103,910100,district,新城区,新城,xin cheng,100.75,30.25,0
        910200,910000,city,云港市,云港,yun gang,101.5,30.25,0
        910202,910200,district,新城区,新城,xin cheng,101.25,30.25,0
        910202001000,910202,town,海湾街道,海湾,hai wan,101.03,30.20,1
        910203,910200,district,白沙区,白沙,bai sha,101.75,30.25,0
        920000,,province,南岭省,南岭,nan ling,102.25,30.25,0
        920100,920000,city,金川市,金川,jin chuan,102.25,30.25,0
        920102,920100,district,河口区,河口,he kou,102.25,30.25,0

        """

    static func square(_ west: Double) -> String {
        let east = west + 0.5
        return "\"POLYGON((\(west) 30.0,\(east) 30.0,\(east) 30.5,\(west) 30.5,\(west) 30.0))\""
    }

    static let boundaries = """
        code,geometry
        910102,\(square(100.0))
        910103,\(square(100.5))
        910202,\(square(101.0))
        910203,\(square(101.5))
        920102,\(square(102.0))

        """

    /// The point the nearby and distance rules are measured from, in 白沙区, 14 km from any town centre.
    static let origin = Coordinate(longitude: 100.2, latitude: 30.2)

    /// POIs, in import order (so rowid order). The 便利店 and 书店 around `origin` lie due north
    /// or south of it (≈ 89, 400, 200, 800 m) and one due east (≈ 1,444 m).
    static let pois = """
        id,name,type,typecode,address,phone,lng,lat,adcode,towncode
        f01,石桥,,,,,100.101,30.101,910102,910102001000
        f02,石桥小学,科教文化服务;学校;小学,141203,,,100.102,30.102,910102,910102001000
        f03,老石桥饭店,餐饮服务;中餐厅;中餐厅,050100,,,100.103,30.103,910102,910102001000
        f04,新城饭店,餐饮服务;中餐厅;中餐厅,050100,,,100.75,30.25,910103,
        f05,新城饭店,餐饮服务;中餐厅;中餐厅,050100,,,101.25,30.25,910202,
        f06,翠湖公园,风景名胜;公园广场;公园,110101,,,100.3,30.3,910102,
        f07,便利店,购物服务;便民商店/便利店;便民商店/便利店,060200,,,100.2,30.2008,910102,
        f08,便利店,购物服务;便民商店/便利店;便民商店/便利店,060200,,,100.2,30.2036,910102,
        f09,便利店,购物服务;便民商店/便利店;便民商店/便利店,060200,,,100.2,30.1982,910102,
        f10,便利店,购物服务;便民商店/便利店;便民商店/便利店,060200,,,100.215,30.2,910102,
        f11,书店,购物服务;文化用品店;书店,061205,,,100.2,30.1928,910102,
        f12,海湾书店,购物服务;文化用品店;书店,061205,,,101.2,30.2,910202,910202001000

        """

    static let poiCount = 12

    /// Writes the three files into `directory` and imports them into a fresh database there;
    /// returns the database's path.
    @discardableResult
    static func build(in directory: URL) throws -> String {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var files: [String] = []
        for (name, text) in [("regions.csv", regions), ("boundaries.csv", boundaries), ("pois.csv", pois)] {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            files.append(url.path)
        }
        let database = directory.appendingPathComponent("small.sqlite").path
        _ = try Importer(path: database).importFiles(files)
        return database
    }

    /// The folder of the copy shared by a test run, removed when the process exits.
    static let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("gazetteer-small-\(ProcessInfo.processInfo.processIdentifier)")

    /// One shared copy per test run.
    static let repository: Repository = {
        do {
            try? FileManager.default.removeItem(at: directory)
            let path = try build(in: directory)
            atexit { try? FileManager.default.removeItem(at: SmallGazetteer.directory) }
            return try Repository(path: path)
        } catch {
            fatalError("the small gazetteer does not import: \(error)")
        }
    }()
}
