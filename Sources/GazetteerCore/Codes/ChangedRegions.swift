/// Cities and districts whose code is new since 2000 or that took in a former unit since then
/// (`changed_regions.tsv`, made by `Scripts/build_former_names.py`). There is no history of
/// towns, but a town can only have left a district across a boundary that changed: the
/// geocoder reads 余杭区乔司 as 临平区's 乔司 because both districts are here, and does not read
/// 鹿城区南塘 as 乐清市's 南塘镇, because neither is.
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
