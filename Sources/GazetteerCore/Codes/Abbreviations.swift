/// Abbreviations people write for long banner and county names, as their own governments and
/// the post do: 察右中旗 for 察哈尔右翼中旗, 科左后旗 for 科尔沁左翼后旗, 土左旗 for 土默特左旗,
/// 达茂旗 for 达尔罕茂明安联合旗, 阜蒙县 for 阜新蒙古族自治县. Read as the region's full name.
package enum Abbreviations {
    /// The abbreviations of a region's full name; empty for most names.
    package static func of(_ name: String) -> [String] {
        // Every region's name passes here at start-up: most end in neither 旗 nor 县 nor 市.
        guard let last = name.unicodeScalars.last, last == "旗" || last == "县" || last == "市" else { return [] }
        if let fixed = fixed[name] { return [fixed] }
        guard last == "旗", let first = name.first else { return [] }
        let body = name.dropLast()
        for part in ["前", "中", "后"] {
            for wing in ["右翼", "左翼"] where body.hasSuffix(wing + part) && body.count >= wing.count + part.count + 2 {
                return ["\(first)\(wing.first!)\(part)旗"]  // 察哈尔右翼中旗 → 察右中旗
            }
        }
        // 土默特左旗 → 土左旗; a two-character stem (巴林左旗) is written in full.
        if let part = body.last, "左右前中后".contains(part), body.count >= 4, !body.contains("翼") {
            return ["\(first)\(part)旗"]
        }
        return []
    }

    private static let fixed = [
        "达尔罕茂明安联合旗": "达茂旗",
        "东乌珠穆沁旗": "东乌旗",
        "西乌珠穆沁旗": "西乌旗",
        "莫力达瓦达斡尔族自治旗": "莫旗",
        "呼和浩特市": "呼市",
        // Autonomous counties whose short form is not the start of the name.
        "阜新蒙古族自治县": "阜蒙县",
        "喀喇沁左翼蒙古族自治县": "喀左县",
        "前郭尔罗斯蒙古族自治县": "前郭县",
        "杜尔伯特蒙古族自治县": "杜蒙县",
    ]
}
