import GazetteerCore
import GazetteerSQLite

/// Which Han characters the linked SQLite's FTS5 tokenizer keeps whole, as a token of its own
/// unchanged: asked of the tokenizer itself, once, by indexing every character `SearchTokens`
/// counts as Han in a scratch table. Whether a code point is a letter to the tokenizer depends
/// on the Unicode tables compiled into that SQLite, so `SearchPostings` takes a token only
/// when every character of it was seen to come back as it went in.
struct SearchTokenProbe {
    private var kept: [UInt64]

    /// Probes `connection`'s FTS5 with `tokenize` (the option as it stands in the table's DDL,
    /// e.g. `unicode61 remove_diacritics 0`), in temporary tables dropped again.
    init(connection: Connection, tokenize: String) throws {
        kept = [UInt64](repeating: 0, count: (0x40000 + 63) / 64)
        var text: [UInt8] = []
        for v in UInt32(0)..<0x40000 {
            guard let u = Unicode.Scalar(v), SearchTokens.isHan(u) else { continue }
            if !text.isEmpty { text.append(0x20) }
            text.append(contentsOf: String(u).utf8)
        }
        let quoted = tokenize.replacingOccurrences(of: "'", with: "''")
        try connection.execute("""
            CREATE VIRTUAL TABLE temp.gazetteer_token_probe USING fts5 (a, content = '', columnsize = 0, tokenize = '\(quoted)');
            CREATE VIRTUAL TABLE temp.gazetteer_token_probe_terms USING fts5vocab (temp, gazetteer_token_probe, row);
            """)
        defer { try? connection.execute("DROP TABLE temp.gazetteer_token_probe_terms; DROP TABLE temp.gazetteer_token_probe") }
        try text.withUnsafeBufferPointer { t in
            try connection.makeStatement("INSERT INTO temp.gazetteer_token_probe (rowid, a) VALUES (1, ?)").run { s throws(SQLiteError) in
                try s.bind(uncopied: t, at: 1)
            }
        }
        // Each character was a token on its own: it is kept whole when it came back as a term
        // (a character the tokenizer drops or folds into another never does).
        let terms = try connection.makeStatement("SELECT term FROM temp.gazetteer_token_probe_terms").rows { $0.text(0) }
        for term in terms {
            let u = term.unicodeScalars
            guard u.count == 1, let v = u.first?.value, SearchTokens.isHan(Unicode.Scalar(v)!) else { continue }
            kept[Int(v) >> 6] |= 1 << UInt64(v & 63)
        }
    }

    /// Whether the tokenizer gives back `scalar` (a Han character) as it is.
    @inline(__always)
    func keepsWhole(_ scalar: UInt32) -> Bool {
        scalar < 0x40000 && kept[Int(scalar) >> 6] & (1 << UInt64(scalar & 63)) != 0
    }
}
