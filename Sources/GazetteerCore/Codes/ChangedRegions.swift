/// Cities and districts whose code is new since 2000 or that took in a former unit since then
/// (`changed_regions.tsv`, made by `Scripts/build_former_names.py`). There is no history of
/// towns, so this is a heuristic: towns moved with the larger reorganisations, which the code
/// lists record, so the geocoder reads 余杭区乔司 as 临平区's 乔司 (临平区 is new) but not 鹿城区南塘
/// as 乐清市's 南塘镇 (neither changed). Towns traded between districts whose codes never changed
/// (瓯海区 and 龙湾区, about 2001) are missed, and a district written wrongly (西湖区良渚街道) is
/// no longer corrected: the district written stands, the town is left unmatched.
package enum ChangedRegions {
    package static let codes: Set<Int64> = {
        var codes: Set<Int64> = []
        for line in PackageResources.changed_regions_tsv.split(separator: UInt8(ascii: "\n")).dropFirst() {
            guard let field = line.split(separator: UInt8(ascii: "\t")).first,
                  let code = Int64(String(decoding: field, as: UTF8.self)) else { continue }
            codes.insert(code)
        }
        return codes
    }()

    /// Whether a town may have moved between these two regions.
    package static func mayHaveTraded(_ a: Int64, _ b: Int64) -> Bool {
        codes.contains(a) || codes.contains(b)
    }
}
