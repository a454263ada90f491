// Fuzz target: the FTS5 query builders. User text must never reach MATCH as FTS5 syntax, so
// every query they build has to run without error; and text that is indexed must be found
// by its own query (the index and query tokenisations agree).
import Foundation

/// An in-memory table shaped like region_fts, for the index/query round trip.
private let scratch: Connection = {
    do {
        let db = try Connection(path: ":memory:", mode: .readWrite)
        try db.execute("""
            CREATE VIRTUAL TABLE t USING fts5 (grams, chars, pinyin, tokenize = 'unicode61 remove_diacritics 0');
            CREATE VIRTUAL TABLE v USING fts5vocab (t, 'instance');
            """)
        return db
    } catch { fatalError("cannot create the scratch FTS5 table: \(error)") }
}()

private func match(_ db: Connection, _ sql: String, _ query: String, input: String) -> Int {
    do {
        return try db.cachedStatement(sql).rows([.text(query)]) { $0.int64(0) }.count
    } catch {
        fuzzFailure("MATCH \(query.debugDescription) failed: \(error)", input: input)
    }
}

private var searchOptions: [SearchOptions] = {
    var plain = SearchOptions()
    plain.limit = 5
    var scoped = SearchOptions()
    scoped.city = "杭州"
    scoped.cityLimit = true
    scoped.location = Coordinate(longitude: 120.15, latitude: 30.25)
    scoped.system = .wgs84
    return [plain, scoped]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSearch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = fuzzText(data, size)
    let db = FuzzFixture.connection

    // 1. The builders' output, run directly against both FTS5 tables.
    let name = SearchTokens.nameQuery(text)
    let pinyin = SearchTokens.pinyinQuery(text)
    for q in [name, pinyin].compactMap({ $0 }) {
        _ = match(db, "SELECT rowid FROM region_fts WHERE region_fts MATCH ? LIMIT 50", q, input: text)
        if !q.hasPrefix("pinyin") {
            _ = match(db, "SELECT rowid FROM poi_fts WHERE poi_fts MATCH ? LIMIT 50", q, input: text)
        }
    }

    // 2. Round trip: text indexed as a name is found by its own name query.
    let tokens = SearchTokens.index([text])
    do {
        try scratch.execute("DELETE FROM t")
        try scratch.cachedStatement("INSERT INTO t (rowid, grams, chars) VALUES (1, ?, ?)").run([.text(tokens.grams), .text(tokens.chars)])
    } catch {
        fuzzFailure("cannot index \(tokens): \(error)", input: text)
    }
    // Text of which the tokenizer keeps nothing (a lone combining mark: unicode61 drops
    // category M) is indexed as nothing and cannot be found; that is not a failure.
    var indexed = false
    if case .integer(let n)? = try? scratch.scalar("SELECT count(*) FROM v") { indexed = n > 0 }
    if let name, indexed, match(scratch, "SELECT rowid FROM t WHERE t MATCH ?", name, input: text) != 1 {
        fuzzFailure("indexed as \(tokens) but not found by \(name.debugDescription)", input: text)
    }

    // 3. The whole search, as a caller makes it.
    for options in searchOptions {
        do {
            _ = try FuzzFixture.repository.search(text, options: options)
        } catch {
            if case .invalidArgument = error { continue }
            fuzzFailure("search threw \(error)", input: text)
        }
    }
    return 0
}
