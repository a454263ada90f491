import Foundation
import GazetteerCore
import GazetteerSQLite
import GazetteerSupport

extension Repository {
    /// The POI whose name starts `text` (longest first), inside `region` when given, of at
    /// least `minLength` characters: a shorter one would read less than the regions already did.
    func poiPrefix(_ text: ArraySlice<Unicode.Scalar>, minLength: Int = 2, inside region: RegionCache.Entry?,
                   parser: AddressParser, db: Connection) throws -> (Int64, Int)? {
        let n = min(text.count, 40)
        guard n >= max(2, minLength) else { return nil }
        let names = POINameQueries(names: parser.poiNames, db: db)
        let adcodes = region.map { AdminCode($0.code).adcodeRange(level: $0.level) }
        // Whether any name starts with the first two characters, asked once per parser: the
        // same few starts (the street after 西湖区, 路, 号) come back address after address.
        let two = UInt64(text.first!.value) << 32 | UInt64(text[text.startIndex + 1].value)
        // Every name either query below can find starts with the text's first `minLength`
        // characters: one seek tells when none does, as it does at most places an address reaches.
        guard try parser.poiStart(two, { try names.some(startingWith: text.prefix(2)) }),
              try minLength <= 2 || names.some(startingWith: text.prefix(minLength)) else { return nil }
        // The longest name that is a start of the text: the greatest name not after the text
        // either is one, or shares fewer characters with it than the text has (a longer start
        // would sort after it), so each seek shortens what is asked. A few index seeks, where
        // one `name IN (every start)` built SQLite a temporary table and a sorter per address.
        let least = max(2, minLength)
        let lowest = text.prefix(least)
        var longest = n
        while longest >= least {
            guard let name = try names.greatest(atMost: text.prefix(longest), atLeast: lowest) else { break }
            // Its length as the parser counts it: in scalars.
            var shared = 0, whole = true
            for u in name.unicodeScalars {
                guard shared < longest, u == text[text.startIndex + shared] else { whole = false; break }
                shared += 1
            }
            guard whole else {
                longest = min(shared, longest - 1)
                continue
            }
            if let rowid = try names.firstRowid(named: name, adcodes: adcodes) { return (rowid, shared) }
            longest = shared - 1
        }
        // The rest of the text may be the start of a longer POI name: 南京大学 → 南京大学(鼓楼校区).
        let rest = text.prefix(n)
        guard try names.some(startingWith: rest) else { return nil }
        return try names.firstLonger(startingWith: rest, after: n, adcodes: adcodes).map { ($0, n) }
    }

    /// Where a region's answer stands: its centre, or its nearest ancestor's when it has none
    /// (and then approximate). The ancestors are the parser's, read without the cache's lock.
    func centre(of deepest: AddressParser.Node, system: CoordinateSystem, parser: AddressParser) throws -> (Coordinate?, Bool) {
        var e: AddressParser.Node? = deepest
        while let current = e, current.row.center == nil { e = try current.parent.flatMap { try parser.entry($0) } }
        return (e?.row.center?.converted(from: .gcj02, to: system), e?.row.centerApproximate ?? true || e?.code != deepest.code)
    }

    /// A free-text Chinese address to the best region or POI and its location (地理编码).
    ///
    /// Tolerates missing suffixes (浙江杭州西湖灵隐), missing levels (西湖区灵隐街道) and detail
    /// after the last known part (…灵隐街道法云弄16号, reported as `unmatched`).
    ///
    /// - Parameters:
    ///   - address: the address text, from a province down to a POI name, any part missing.
    ///   - city: a city (name or adcode) the address lies in, to resolve ambiguity.
    ///   - system: the coordinate system of the location returned.
    /// - Returns: nil when nothing in the text is a known region or POI.
    /// Geocodes many addresses on all cores: one result per address, in their order (nil where
    /// nothing in the text is known, an error where the address itself is refused, for example
    /// one over 200 characters). As `reverseGeocode` does for points: one call for a column of a
    /// spreadsheet, not one per row.
    public func geocode(_ addresses: [String], city: String? = nil, system: CoordinateSystem = .gcj02) -> [Result<Geocode?, GazetteerError>] {
        let n = addresses.count
        guard n > 0 else { return [] }
        // One worker per core, each with one parser, taking the next few addresses as it is
        // free: a parser remembers the regions it has met, which per-slice parsers met again.
        let workers = min(n, ProcessInfo.processInfo.activeProcessorCount)
        let next = Locked(0), chunk = 16
        nonisolated(unsafe) let results = UnsafeMutableBufferPointer<Result<Geocode?, GazetteerError>>.allocate(capacity: n)
        results.initialize(repeating: .success(nil))
        // The name table once, before the threads, each of which would otherwise build its own
        // while the cache is empty (an error here is met again, and reported, per slice).
        _ = try? read { db in
            _ = try regions.names(db)
            regions.noteAddressesGeocoded(n, db)
        }
        var moved = false
        defer {
            if !moved { _ = results.deinitialize() }
            results.deallocate()
        }
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            func claim() -> Range<Int>? {
                next.withLock { at in
                    guard at < n else { return nil }
                    defer { at = min(n, at + chunk) }
                    return at..<min(n, at + chunk)
                }
            }
            // One read (one connection, one snapshot, one parser) per worker, not per address.
            var range = claim()
            do throws(GazetteerError) {
                try read { db in
                    let parser = try AddressParser(db: db, cache: regions)
                    defer { parser.finish() }
                    while let claimed = range {
                        defer { range = claim() }
                        for i in claimed {
                            do {
                                results[i] = .success(try Self.geocodeText(addresses[i]).flatMap {
                                    try geocode(text: $0, city: city, system: system, parser: parser, db: db)
                                })
                            } catch {
                                results[i] = .failure(mapped(error))
                            }
                        }
                    }
                }
            } catch {
                // The read itself failed: this worker's addresses, and those it would have taken.
                while let claimed = range {
                    for i in claimed { results[i] = .failure(error) }
                    range = claim()
                }
            }
        }
        // Moved out, not copied: an answer is some thirty strings and regions to retain and release.
        return Array(unsafeUninitializedCapacity: n) { buffer, count in
            count = buffer.moveInitialize(fromContentsOf: results)
            moved = true
        }
    }

    public func geocode(_ address: String, city: String? = nil, system: CoordinateSystem = .gcj02) throws(GazetteerError) -> Geocode? {
        guard let text = try Self.geocodeText(address) else { return nil }
        return try read { db in
            let parser = try AddressParser(db: db, cache: regions)
            defer { parser.finish() }
            return try geocode(text: text, city: city, system: system, parser: parser, db: db)
        }
    }

    /// The address as the parser reads it; nil when nothing is left of it.
    static func geocodeText(_ address: String) throws(GazetteerError) -> [Unicode.Scalar]? {
        let text = AddressParser.normalize(address)
        guard !text.isEmpty else { return nil }
        guard text.count <= 200 else { throw .invalidArgument(name: "address", reason: "is longer than 200 characters") }
        return text
    }

    func geocode(text: [Unicode.Scalar], city: String?, system: CoordinateSystem, parser: AddressParser, db: Connection) throws -> Geocode? {
        do {
            let scope = try city.map { try resolveRegion($0, db: db) }
            // Regions are read in simplified characters (屯門區 is 屯门区); what is left unmatched,
            // from the text as written: the folding keeps every position.
            let folded = TraditionalChinese.folded(text)
            let read = folded ?? text
            var path = try parser.parse(read, scope: scope)
            if scope != nil {
                // The city only resolves what the text leaves open: an address that names
                // another place outright (浙江省杭州市… with --city 北京) is read as written.
                let unscoped = try parser.parse(read, scope: nil)
                let namesPlace = unscoped.chain.first.map { $0.level <= .city } ?? false
                if namesPlace && unscoped.read > path.read { path = unscoped }
            }
            // The levels above the deepest match come from the tree (as the parser holds it).
            var chain = try path.chain.last.map { try parser.lineage($0) } ?? []
            // A POI named where words that name nothing begin (温州肯恩大学丽岙街道…) is read
            // rather than the region after them: the POI is the nearer place.
            let noiseStart = path.noise?.lowerBound
            var consumed = noiseStart ?? path.consumed
            // Then a POI: named after any matched region (or at the start), inside it; the
            // reading that covers the most text wins, so 北京大学 is the university, not 北京 + 大学.
            var poi: POI?
            var poiRegion: Int?  // how many chain elements stand before the POI
            var poiAt = 0  // where the POI's name starts
            for k in stride(from: path.chain.count, through: 0, by: -1) {
                let at = k == 0 ? 0 : path.ends[k - 1]
                guard at < text.count else { continue }
                let region = k == 0 ? nil : path.chain[k - 1].row
                // Only a name that reads at least as far as the regions did can win.
                let least = consumed - at + (k == path.chain.count && poi == nil ? 0 : 1)
                // A POI's name as written first (a Hong Kong shop's own traditional name), else
                // as folded (北京大學 is 北京大学).
                guard let (rowid, length) = try poiPrefix(text[at...], minLength: least, inside: region, parser: parser, db: db)
                    ?? folded.flatMap({ try poiPrefix($0[at...], minLength: least, inside: region, parser: parser, db: db) })
                else { continue }
                if at + length > consumed || (at + length == consumed && poi == nil && k == path.chain.count) {
                    // Before the noise, a POI must read past its start; after it, past the regions.
                    if let noiseStart, at + length <= (at <= noiseStart ? noiseStart : path.consumed) { continue }
                    consumed = at + length
                    poiAt = at
                    poi = try POIFinder(db: db).load([rowid], system: system).first
                    poiRegion = k
                }
            }
            if let k = poiRegion {
                let named = k == 0 ? nil : path.chain[k - 1]
                chain = try named.map { try parser.lineage($0) } ?? []
                // The POI's own town (or district) completes the address.
                let own = poi.flatMap { Int64($0.townCode12 ?? "") ?? Int64($0.adcode ?? "") }
                if let own, let e = try parser.entry(own),
                   named.map({ AdminCode(e.code).isWithin(AdminCode($0.code), level: $0.level) && e.level > $0.level }) ?? true {
                    chain = try parser.lineage(e)
                }
            }
            if poi == nil { consumed = path.consumed }
            // The noise inside stays unmatched, unless a POI read over it.
            let noise = path.noise.flatMap { n in poi != nil && poiAt <= n.lowerBound ? nil : text[n].string } ?? ""
            let rest = noise + text[consumed...].string
            guard !chain.isEmpty || poi != nil else { return nil }
            var result = Geocode(level: poi != nil ? "兴趣点" : chain.last!.level.chineseName, province: nil, city: nil,
                                 district: nil, town: nil, poi: poi, location: nil, locationIsApproximate: false,
                                 formattedAddress: "", unmatched: rest)
            for e in chain {
                result.fill(e.region(system: system))
            }
            if let poi {
                result.location = poi.location
            } else if let deepest = chain.last {
                (result.location, result.locationIsApproximate) = try centre(of: deepest, system: system, parser: parser)
            }
            result.formattedAddress = chain.map(\.name).joined() + (poi?.name ?? "")
            // Namesakes the text does not decide between (西湖区 alone), each in its own place.
            if poi == nil, chain.last?.code == path.chain.last?.code {
                for other in path.namesakes.sorted(by: { $0.code < $1.code }).prefix(9) {
                    var g = Geocode(level: result.level, locationIsApproximate: false, formattedAddress: "", unmatched: rest)
                    let lineage = try parser.lineage(other)
                    for e in lineage { g.fill(e.region(system: system)) }
                    (g.location, g.locationIsApproximate) = try centre(of: other, system: system, parser: parser)
                    g.formattedAddress = lineage.map(\.name).joined()
                    g.formerNames = path.formers
                    result.namesakes.append(g)
                }
            }
            result.formerNames = path.formers
            // Ends in a functional zone (长春经开区): AMap's level 开发区, at the zone's centre.
            if poi == nil, let zone = path.zone, chain.last?.code == path.chain.last?.code {
                result.level = "开发区"
                result.formattedAddress += zone.name
                if let c = zone.center {
                    result.location = c.converted(from: .gcj02, to: system)
                    result.locationIsApproximate = true
                }
            }
            return result
        }
    }
}

extension Geocode {
    /// Puts `r` at its level, as `Address.fill` does for reverse geocoding.
    mutating func fill(_ r: Region) {
        switch r.level {
        case .province: province = r
        case .city: city = r
        case .district: district = r
        case .town: town = r
        }
    }
}
