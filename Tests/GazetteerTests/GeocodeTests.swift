import Foundation
import Testing
@testable import Gazetteer
@testable import GazetteerAMap
@testable import GazetteerCore
@testable import GazetteerImport
@testable import GazetteerQuery
@testable import GazetteerSQLite
@testable import GazetteerSupport

@Suite(.tags(.seed), .skippedInFastRuns) struct GeocodeTests {
    let repo = SeedDatabase.repository

    @Test(arguments: [
        "浙江杭州西湖灵隐",           // missing suffixes
        "西湖区灵隐街道",             // missing levels: Hangzhou's 西湖区 is the one with a 灵隐街道
        "浙江省杭州市西湖区灵隐街道",
        "杭州灵隐街道",
        " 浙江 杭州 西湖区 灵隐街道 ", // spaces
    ])
    func variantsReachTheSameTown(_ address: String) throws {
        let g = try #require(try repo.geocode(address))
        #expect(g.town?.code == "330106003000", "\(address) → \(g.formattedAddress)")
        #expect(g.level == "乡镇")
        #expect(g.district?.code == "330106" && g.city?.code == "330100" && g.province?.code == "330000")
        #expect(g.formattedAddress == "浙江省杭州市西湖区灵隐街道")
        #expect(g.unmatched.isEmpty)
        #expect(g.location != nil)
    }

    /// Text as people write it (issue 13): noise before and after, separators, levels repeated
    /// or filled in by the code list, short names chained, a short district before a road.
    @Test(arguments: [
        ("北京北京市海淀区", "110108", "", ""),
        ("浙江省杭州市杭州市滨江区", "330108", "", ""),
        ("湖北省省直辖县仙桃市", "429004", "", ""),
        ("上海市市辖区杨浦区", "310110", "", ""),
        ("重庆市重庆城区黔江区", "500114", "", ""),
        ("东莞市东莞市万江街道", "441900", "441900", ""),
        ("浙江省-杭州市-滨江区", "330108", "", ""),
        ("浙江省/杭州市/滨江区", "330108", "", ""),
        ("北京·朝阳区", "110105", "", ""),
        ("13311111111 上海市黄浦区 建设路 紫薇花园 何晓旭", "310101", "", "建设路紫薇花园何晓旭"),
        ("我家的地址是北京市朝阳区", "110105", "", ""),
        ("收货地址：浙江省杭州市滨江区", "330108", "", ""),
        ("台州路桥区峰江镇", "331004", "331004", ""),
        ("黑龙江哈尔滨道里榆树", "230102", "230102", ""),
        ("福建漳州芗城巷口", "350602", "350602", ""),
        ("柯桥轻纺城", "330603", "", "轻纺城"),
        ("义乌国际商贸城", "330782", "", "国际商贸城"),
        ("晋城市城区", "140502", "", ""),            // a district named 城区 is not a filler
        ("香港特别行政区新界屯门区", "810115", "", ""),         // a district, as AMap has it
        ("澳门氹仔嘉模堂区", "820106", "", ""),
        // Words naming nothing inside the address, then a region under the last one, in full.
        ("海宁市华佳印刷机有限公司丁桥镇广场路182号", "330481", "330481106", "华佳印刷机有限公司广场路182号"),
        ("浙江省委托件杭州市西湖区", "330106", "", "委托件"),
        ("浙江省宁波市慈溪市新塘路891号附海镇", "330282", "330282108", "新塘路891号"),
        ("浙江省台州市玉环县玉环县玉城街道", "331083", "331083001", ""),  // 玉环市 once 玉环县, written twice
        ("北京市某某科技有限公司北京市朝阳区望京街道", "110105", "110105026", "某某科技有限公司"),
        // A shop named after a town says nothing of where the address is.
        ("杭州市萧山区市心北路188号瓜沥镇土菜馆", "330109", "", "市心北路188号瓜沥镇土菜馆"),
        // A label's default city, then the real one with its district.
        ("浙江温州宁波市江北区慈城镇普济路8号", "330205", "330205103", "普济路8号"),
        ("杭州市宁波市场", "330100", "", "宁波市场"),  // not a city without a region of its own after it
        // The county-level city bearing its prefecture's short name, with another suffix.
        ("恩施区民族路12号", "422801", "", "民族路12号"),
        ("大理区人民路", "532901", "", "人民路"),
        // Traditional characters: regions read simplified, the rest left as written.
        ("香港新界屯門區", "810115", "", ""),
        ("杭州西湖區靈隱街道法雲弄16號", "330106", "330106003", "法雲弄16號"),
        ("陝西省咸陽市乾縣", "610424", "", ""),  // 乾县 keeps its 乾
    ])
    func realWorldText(_ address: String, _ adcode: String, _ town: String, _ unmatched: String) throws {
        let g = try #require(try repo.geocode(address), "\(address)")
        #expect(g.adcode == adcode, "\(address) → \(g.formattedAddress)")
        if !town.isEmpty { #expect(g.town?.code.hasPrefix(town) == true, "\(address) → \(g.formattedAddress)") }
        #expect(g.unmatched == unmatched, "\(address) → \(g.formattedAddress) + \(g.unmatched)")
    }

    /// A POI's name written in traditional characters finds the POI stored in simplified ones,
    /// alone or after its regions.
    @Test(arguments: [("北京大學", "北京大学"), ("北京市海淀區北京大學", "北京大学"), ("浙江大學紫金港校區", "浙江大学紫金港校区")])
    func traditionalPOINames(_ address: String, _ name: String) throws {
        let g = try #require(try repo.geocode(address), "\(address)")
        #expect(g.level == "兴趣点" && g.poi?.name == name, "\(address) → \(g.formattedAddress)")
        #expect(g.unmatched.isEmpty)
    }

    /// A town written under a district that no longer holds it is read where it is today
    /// only across a boundary that changed (Codes/changed_regions.tsv): 乔司 left 余杭区 for
    /// 临平区 in 2021, 古林 left 鄞州区 for 海曙区 in 2016; 乐清's 南塘镇 and 黄岩's 东城街道
    /// were never in 鹿城区 or 临海市, so the district written stands and the rest is unmatched.
    @Test(arguments: [
        ("杭州市余杭区乔司镇朝阳村四组175号", "330113", "330113005"),
        ("宁波鄞州区古林镇", "330203", "330203103"),
        ("温州鹿城区南塘二组团", "330302", ""),
        ("台州临海市东城镇东溪单村篮球场", "331082", ""),
        ("奉化东郊开发区云峰路119号", "330213", ""),  // a zone named after 鄞州区's 东郊街道, in 奉化
    ])
    func townsMovedOnlyAcrossChangedBoundaries(_ address: String, _ adcode: String, _ town: String) throws {
        let g = try #require(try repo.geocode(address), "\(address)")
        #expect(g.adcode == adcode, "\(address) → \(g.formattedAddress)")
        #expect((g.town?.code ?? "").hasPrefix(town) && (town.isEmpty == (g.town == nil)), "\(address) → \(g.formattedAddress)")
    }

    /// Former names and codes resolve to today's region, and the answer says which name was
    /// read (Sources/GazetteerCore/Codes/former_names.tsv).
    @Test(arguments: [
        ("湖北省襄樊市樊城区", "420606", "襄樊市"),
        ("浙江省杭州市下城区", "330105", "下城区"),       // merged into 拱墅区 in 2021
        ("宁波江东区", "330212", "江东区"),               // into 鄞州区 in 2016
        ("广西柳州地区忻城县", "451321", "柳州地区"),      // 忻城 now under 来宾
        ("北京市崇文区", "110101", "崇文区"),
        ("北京密云县", "110118", "密云县"),
        ("浙江省临安市", "330112", "临安市"),
        ("北京市海淀区", "110108", ""),                    // today's names: nothing noted
    ])
    func formerNames(_ address: String, _ adcode: String, _ former: String) throws {
        let g = try #require(try repo.geocode(address), "\(address)")
        #expect(g.adcode == adcode, "\(address) → \(g.formattedAddress)")
        #expect(g.formerNames.joined(separator: ",") == former, "\(address) → \(g.formerNames)")
        #expect(g.unmatched.isEmpty, "\(address) → \(g.unmatched)")
    }

    /// Delivery-label text (issue 13, second pass): a second full address after the first, a
    /// district then a sibling, a province misnamed 省, banner abbreviations, places named after
    /// a town, 白云湖街 for 白云湖街道, a namesake town decided by the county after it, noise
    /// before the address that starts with a bare short name.
    @Test(arguments: [
        ("河南省漯河市召陵区中国浙江省杭州市淳安县排岭北路125号", "330127", ""),
        ("广东省揭阳市普宁市浙江省南白象街道", "445281", ""),     // a province and a bare town: not an address again
        ("温州市鹿城区龙湾区徐家桥", "330303", ""),
        ("广西省桂平市江口镇", "450881", "450881120"),
        ("内蒙古乌兰察布市察右中旗", "150927", ""),
        ("余姚市新桥工业园翁家231号旁", "330281", ""),           // not 象山县's 新桥镇
        ("浙江省慈溪市坎墩工业园区855号", "330282", "330282003"),  // but 慈溪市's own 坎墩 is
        ("浙江省温州市瑞安市虹桥南路", "330381", ""),             // a road, not 乐清市's 虹桥镇
        ("河北省石家庄市裕华区育才街1410号", "130108", ""),       // a street, not 长安区's 育才街道
        ("广州市白云区白云湖街大冈村", "440111", "440111018"),
        ("新集镇新县长潭二街", "411523", "411523002"),
        ("盘龙城经济开发区武汉市_黄陂盘龙城", "420116", ""),     // not 昆明's 盘龙区
        ("上海 上海市 浦东区 asd", "310115", ""),                // 上海 is not the 上海县 merged into 闵行区
        ("重庆市县城口县", "500229", ""),                         // the code list's 县 of a municipality
        ("辽宁省阜蒙县繁荣大街北段", "210921", ""),               // 阜新蒙古族自治县 as its post writes it
        ("上海浦东新村莱阳路4279弄", "310115", ""),               // not 崇明区's 新村乡
        ("金华市婺城区仙华南街1701号", "330702", ""),             // a street, not 浦江县's 仙华街道
        ("广州市天河区珠江新城华新就105号", "440106", ""),        // a quarter, not 南沙区's 珠江街道
        ("内蒙古呼市赛罕大学西街100号", "150105", ""),            // 呼市 for 呼和浩特市
        ("山东青岛市北区水清沟街道九江路20号", "370203", "370203034"),  // 青岛 + 市北区, not 青岛市 + 北区
        ("重庆渝北区两路镇双龙西路236号", "500112", "500112016"),
        ("中国山东青岛城阳区湘潭路华胥美邦", "370214", ""),       // a road, not 李沧区's 湘潭路街道
    ])
    func labelText(_ address: String, _ adcode: String, _ town: String) throws {
        let g = try #require(try repo.geocode(address), "\(address)")
        #expect(g.adcode == adcode, "\(address) → \(g.formattedAddress)")
        #expect((g.townCode9 ?? "") == town, "\(address) → \(g.formattedAddress)")
        #expect(g.namesakes.isEmpty)
    }

    /// A name several places bear, and nothing in the text to choose: every one of them is
    /// answered, none picked at random; a word more decides.
    @Test func namesakesAreAllAnswered() throws {
        let bare = try #require(try repo.geocode("西湖区"))
        #expect(Set([bare.adcode] + bare.namesakes.map(\.adcode)) == ["330106", "360103"])
        #expect(bare.namesakes.allSatisfy { $0.location != nil && $0.level == "区县" })
        let towns = try #require(try repo.geocode("四季青街道"))
        #expect(towns.namesakes.count >= 2 && Set(towns.namesakes.map(\.town?.name)) == ["四季青街道"])
        #expect(try repo.geocode("杭州西湖区")?.namesakes.isEmpty == true)
        #expect(try repo.geocode("西湖区灵隐街道")?.namesakes.isEmpty == true)
    }

    /// A former adcode or name given to `district` or as the city finds today's region.
    @Test func formerCodesInDistrictAndCity() throws {
        #expect(try repo.districts("330103", subdistrict: 0).map(\.region.code) == ["330105"])
        #expect(try repo.districts("襄樊", subdistrict: 0).map(\.region.code) == ["420600"])
        #expect(try repo.geocode("樊城区", city: "襄樊")?.adcode == "420606")
        #expect(try repo.districts("999999", subdistrict: 0).isEmpty)
    }

    /// The later text decides between namesakes: 四季青街道 of 杭州 (江干区, today 上城区), not 邯郸's.
    @Test func laterTextDecidesNamesakes() throws {
        let g = try #require(try repo.geocode("四季青街道江干区清江路"))
        #expect(g.town?.name == "四季青街道" && g.district?.code == "330102", "\(g.formattedAddress)")
        #expect(try repo.geocode("灵隐街道西湖区")?.town?.code == "330106003000")
        // 江东区 after 衡阳市 is not 衡山县's 江东乡 with 区 left over.
        #expect(try repo.geocode("衡阳市江东区")?.town == nil)
    }

    /// Functional zones of the statistics list (Sources/GazetteerCore/Codes/functional_zones.tsv)
    /// answer as AMap does: level 开发区, in the statutory region that holds them.
    @Test func functionalZonesAreFound() throws {
        let g = try #require(try repo.geocode("长春经开区"))
        #expect(g.level == "开发区" && g.city?.code == "220100" && g.formattedAddress.hasSuffix("长春经济技术开发区"), "\(g)")
        #expect(g.location != nil && g.locationIsApproximate)
        let s = try #require(try repo.geocode("苏州工业园区星湖街"))
        #expect(s.level == "开发区" && s.city?.code == "320500" && s.unmatched == "星湖街", "\(s.formattedAddress) + \(s.unmatched)")
        // A town named after the zone is the deeper answer.
        #expect(try repo.geocode("吉林省长春市长春经济技术开发区临河街道")?.town?.name == "临河街道")
    }

    /// 两江新区 is a functional zone: geocoding finds it and its towns, while the statutory
    /// districts it overlaps answer reverse geocoding (ReverseGeocodeTests).
    @Test func functionalZoneAndStatutoryDistricts() throws {
        #expect(try repo.geocode("两江新区礼嘉街道")?.district?.code == "500157")
        #expect(try repo.geocode("重庆市江北区观音桥街道")?.town?.code.hasPrefix("500105") == true)
        #expect(try repo.geocode("重庆渝北区")?.adcode == "500112")
    }

    /// The batch call answers each address as the single call does, in order, errors in place.
    @Test func batchEqualsOneByOne() throws {
        let addresses = ["浙江省杭州市西湖区灵隐街道", "", "北京市朝阳区", String(repeating: "西", count: 201), "没有这个地方", "上海市黄浦区"]
            + (0..<200).map { ["杭州西湖", "北京海淀", "广东深圳南山"][$0 % 3] }
        let batch = repo.geocode(addresses)
        try #require(batch.count == addresses.count)
        for (address, result) in zip(addresses, batch) {
            switch result {
            case .success(let g):
                #expect(g?.formattedAddress == (try repo.geocode(address))?.formattedAddress, "\(address)")
                #expect(g?.location == (try repo.geocode(address))?.location, "\(address)")
            case .failure:
                #expect(throws: GazetteerError.self) { try repo.geocode(address) }
            }
        }
        guard case .failure = batch[3] else { Issue.record("a 201-character address must fail in place"); return }
        #expect((try? batch[1].get()) == .some(nil), "a blank address finds nothing")
    }

    /// A batch large enough loads every POI's name (`POINames`) and asks its POI questions in
    /// memory: each answer is the one a lone geocode gets from the database.
    @Test func aLargeBatchAnswersAsLoneQueries() throws {
        let pois = try repo.read { db in try db.cachedStatement("SELECT name FROM poi WHERE rowid % 23 = 0").rows { $0.text(0) } }
        let addresses = try GeocodeSuite("nca-dev").cases.map(\.address)
            + pois.flatMap { [$0, "杭州市" + $0 + "东门", String($0.dropLast(2))] }
        let batchRepository = try Repository(path: SeedDatabase.path), loneRepository = try Repository(path: SeedDatabase.path)
        let batch = batchRepository.geocode(addresses)
        #expect(try batchRepository.read { db in batchRepository.regions.poiNames(db) } != nil, "the batch loaded the names")
        var found = 0
        for (address, result) in zip(addresses, batch) {
            let lone = try loneRepository.geocode(address)
            let g = try result.get()
            #expect(g == lone, "\(address)")
            if g?.poi != nil { found += 1 }
        }
        #expect(try loneRepository.read { db in loneRepository.regions.poiNames(db) } == nil, "lone queries asked SQL")
        #expect(found > pois.count, "the addresses reach POIs")
    }

    /// Batch mode writes geo's answer straight into bytes (`writeGeoAnswer`): the same text as the
    /// service's JSON value, on a suite's addresses and on answers of every kind (nothing found,
    /// namesakes, a former name, an estimated location, text needing escapes).
    @Test func batchAnswerBytesAreTheServiceAnswer() throws {
        let suite = try GeocodeSuite("cpca-addressparser").cases.map(\.address)
        let addresses = suite + ["没有这个地方", "西湖区", "四季青街道", "襄樊市樊城区", "长春经开区", "浙江省杭州市西湖区\"引号\\路\u{2028}1号"]
        var kinds: Set<String> = []
        for address in addresses {
            let g = try repo.geocode(address)
            var bytes: [UInt8] = []
            AMapShape.writeGeoAnswer(g, into: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == AMapShape.geoAnswer(g).text, "\(address)")
            if g == nil { kinds.insert("none") }
            if g?.namesakes.isEmpty == false { kinds.insert("namesakes") }
            if g?.formerNames.isEmpty == false { kinds.insert("former") }
            if g?.locationIsApproximate == true { kinds.insert("approximate") }
            if g?.unmatched.contains("\"") == true { kinds.insert("escaped") }
        }
        #expect(kinds == ["none", "namesakes", "former", "approximate", "escaped"])
    }

    /// Control characters pasted into an address (a NUL, an escape) are read over, as spaces are.
    @Test func controlCharactersAreReadOver() throws {
        for (noisy, clean) in [("江苏省南京市三江学院\u{0}", "江苏省南京市三江学院"), ("浙江\u{1B}杭州\u{0}西湖区\u{7F}", "浙江杭州西湖区"),
                               ("北京市\u{85}海淀区", "北京市海淀区")] {
            let g = try #require(try repo.geocode(noisy))
            #expect(g == (try repo.geocode(clean)), "\(noisy.debugDescription)")
            #expect(g.unmatched.isEmpty || !g.unmatched.unicodeScalars.contains { $0.properties.generalCategory == .control })
        }
    }

    @Test func extraDetailIsReportedUnmatched() throws {
        let g = try #require(try repo.geocode("浙江省杭州市西湖区灵隐街道法云弄16号"))
        #expect(g.town?.name == "灵隐街道")
        #expect(g.unmatched == "法云弄16号")
        let shanghai = try #require(try repo.geocode("上海市浦东新区世纪大道100号"))
        #expect(shanghai.district?.code == "310115" && shanghai.city == nil && shanghai.level == "区县")
        #expect(shanghai.unmatched == "世纪大道100号")
    }

    @Test func levelsAndSpecialTrees() throws {
        #expect(try repo.geocode("浙江省")?.level == "省")
        #expect(try repo.geocode("杭州市")?.level == "市")
        let xiantao = try #require(try repo.geocode("湖北省仙桃市"))
        #expect(xiantao.district?.code == "429004" && xiantao.city == nil && xiantao.level == "区县")
        let dongguan = try #require(try repo.geocode("广东省东莞市南城街道"))
        #expect(dongguan.city?.code == "441900" && dongguan.district == nil && dongguan.town?.code == "441900004000")
        let beijing = try #require(try repo.geocode("北京市朝阳区望京街道阜通东大街6号"))
        #expect(beijing.town?.code == "110105026000" && beijing.unmatched == "阜通东大街6号")
        #expect(!beijing.formattedAddress.contains("北京市北京市"))
    }

    @Test func poisAreFoundByName() throws {
        let pku = try #require(try repo.geocode("北京大学"))
        #expect(pku.level == "兴趣点" && pku.poi?.name == "北京大学" && pku.district?.code == "110108")
        #expect(pku.location == Coordinate(longitude: 116.3107, latitude: 39.992591))
        let scoped = try #require(try repo.geocode("北京市海淀区北京大学"))
        #expect(scoped.poi?.id == pku.poi?.id && scoped.unmatched.isEmpty)
    }

    /// A short region name inside a street or landmark name is not that region: 天安门 is not
    /// 天安乡 + 门, 长安街 is not 长安区 + 街.
    @Test func streetAndLandmarkNamesAreNotRegions() throws {
        for address in ["天安门", "天安门广场", "长安街1号", "中山路100号", "南京路步行街"] {
            let g = try repo.geocode(address)
            #expect(g == nil, "\(address) → \(g?.formattedAddress ?? "")")
        }
        let zgc = try #require(try repo.geocode("北京市海淀区中关村大街1号"))
        #expect(zgc.district?.code == "110108" && zgc.town == nil && zgc.unmatched == "中关村大街1号")
    }

    @Test func aPOINameMayContinueBeyondTheText() throws {
        let g = try #require(try repo.geocode("南京大学"))
        #expect(g.level == "兴趣点")
        #expect(g.poi?.name.hasPrefix("南京大学(") == true)
        #expect(g.city?.name == "南京市")
    }

    @Test func theTextWinsOverAContradictingCity() throws {
        let g = try #require(try repo.geocode("浙江省杭州市西湖区灵隐街道法云弄16号", city: "北京"))
        #expect(g.town?.code == "330106003000" && g.unmatched == "法云弄16号")
    }

    @Test func aCityIsNotOverriddenByAStreetName() throws {
        let g = try #require(try repo.geocode("中山路", city: "杭州"))
        #expect(g.city?.code == "330100" && g.unmatched == "中山路")
    }

    @Test func cityResolvesAmbiguity() throws {
        #expect(try repo.geocode("西湖区", city: "南昌")?.district?.code == "360103")
        #expect(try repo.geocode("西湖区", city: "330100")?.district?.code == "330106")
    }

    @Test func nothingFoundAndBadInput() throws {
        #expect(try repo.geocode("xyz") == nil)
        #expect(try repo.geocode("   ") == nil)
        #expect(try repo.geocode("\"; DROP TABLE region; --") == nil)
        #expect(throws: GazetteerError.self) { _ = try repo.geocode(String(repeating: "路", count: 5000)) }
        #expect(throws: GazetteerError.self) { _ = try repo.geocode("西湖区", city: "不存在") }
    }

    /// A character may reach us in a compatibility or decomposed form (金 as U+F90A, from an
    /// old font or a converter): it is the same character, so the same name.
    @Test func canonicallyEquivalentTextReadsTheSame() throws {
        let g = try #require(try repo.geocode("浙江省\u{F90A}华市婺城区"))
        #expect(g.district?.code == "330702" && g.unmatched.isEmpty)
        // The text is read by scalars, composed; a word that is not is composed to compare.
        #expect(AddressParser.starts(AddressParser.normalize("杭州市西湖区")[...], with: "杭州"))
        #expect(!AddressParser.starts(AddressParser.normalize("杭州市")[...], with: "杭州湾"))
        #expect(AddressParser.starts(AddressParser.normalize("Cafe\u{301}路")[...], with: "Cafe\u{301}"))
        #expect(AddressParser.starts(AddressParser.normalize("Caf\u{E9}路")[...], with: "Cafe\u{301}"))
        #expect(!AddressParser.starts(AddressParser.normalize("Cafe路")[...], with: "Caf\u{E9}"))
    }

    /// A combining mark on a Chinese character composes with nothing: it is dropped, not read
    /// as a character standing between two names.
    @Test func aStrayCombiningMarkIsReadOver() throws {
        #expect(AddressParser.normalize("浙江省\u{301}宁波市") == Array("浙江省宁波市".unicodeScalars))
        #expect(AddressParser.normalize("Cafe\u{301}") == Array("Caf\u{E9}".unicodeScalars))
        #expect(AddressParser.normalize("咖啡\u{2615}\u{FE0F}") == Array("咖啡\u{2615}\u{FE0F}".unicodeScalars))
        let marked = try #require(try repo.geocode("浙江省\u{301}宁波市江北区洪塘镇裘市公交车站"))
        let plain = try #require(try repo.geocode("浙江省宁波市江北区洪塘镇裘市公交车站"))
        #expect(marked.town?.code == "330205007000" && marked.unmatched == plain.unmatched && marked.formattedAddress == plain.formattedAddress)
    }

    @Test func wgs84AnswersInWGS84() throws {
        let gcj = try #require(try repo.geocode("北京大学"))
        let wgs = try #require(try repo.geocode("北京大学", system: .wgs84))
        let back = wgs.location!.converted(from: .wgs84, to: .gcj02)
        #expect(back.distance(to: gcj.location!) < 0.5)
        #expect(wgs.location!.distance(to: gcj.location!) > 100) // really shifted
    }
}
