-- gazetteer schema: the one source of truth.
-- The library compiles this file in and applies it to a new database; the version below is what
-- it checks when it opens an existing one. Change the schema => raise the version.
PRAGMA user_version = 4;
-- 16 KiB pages, not SQLite's 4 KiB: an import writes a quarter as many pages to the WAL and
-- copies a quarter as many back (a frame, a checksum and system calls each); queries measured the
-- same. A new file gets it when opened (Schema.pageSize); an existing one keeps its own.
PRAGMA page_size = 16384;

-- Key/value facts about the dataset: schema_version, coordinate_system, dataset_version,
-- dataset_sources, imported_at.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

INSERT INTO meta (key, value) VALUES
    ('schema_version', '4'),
    ('coordinate_system', 'GCJ-02'),
    ('dataset_version', ''),
    ('dataset_sources', '');

-- Administrative regions at four levels. `code` is the 6-digit adcode for provinces, cities
-- and districts, and the 12-digit statistics code for towns (its first 9 digits are the town
-- code), so one integer key serves the tree, the R*Tree and the FTS rowid.
-- Gaps in the tree are kept as they are: a municipality's districts and a county directly
-- under a province have the province as parent; a city's towns may have the city as parent.
CREATE TABLE region (
    code          INTEGER PRIMARY KEY,
    parent        INTEGER REFERENCES region (code) DEFERRABLE INITIALLY DEFERRED,
    level         INTEGER NOT NULL CHECK (level BETWEEN 0 AND 3), -- 0 province, 1 city, 2 district, 3 town
    name          TEXT NOT NULL,   -- full name: 杭州市
    short_name    TEXT,            -- 杭州
    pinyin        TEXT,            -- pinyin of the short name, syllables spaced: hang zhou
    citycode      TEXT,            -- telephone area code as AMap gives it: 0571
    lng           REAL,            -- centre, GCJ-02
    lat           REAL,
    center_approx INTEGER NOT NULL DEFAULT 0 CHECK (center_approx IN (0, 1)),
    min_lng       REAL,            -- bounding box, GCJ-02
    min_lat       REAL,
    max_lng       REAL,
    max_lat       REAL,
    boundary      BLOB             -- MultiPolygon in the library's binary encoding, GCJ-02
);
CREATE INDEX region_parent ON region (parent);
CREATE INDEX region_name ON region (name);
CREATE INDEX region_short_name ON region (short_name);

-- Bounding boxes of regions that have one; id = region.code.
CREATE VIRTUAL TABLE region_rtree USING rtree (
    id, min_lng, max_lng, min_lat, max_lat,
    +level INTEGER
);

-- Points of interest. `id` is the importer's stable key; rowid is internal and keys the
-- R*Tree and FTS tables.
CREATE TABLE poi (
    rowid     INTEGER PRIMARY KEY,
    id        TEXT NOT NULL UNIQUE,
    name      TEXT NOT NULL,
    type      TEXT,             -- AMap-style path: 科教文化服务;学校;高等院校
    typecode  TEXT,             -- AMap-style 6-digit code: 141201
    address   TEXT,
    phone     TEXT,
    lng       REAL NOT NULL,    -- GCJ-02
    lat       REAL NOT NULL,
    adcode    INTEGER,          -- district (or city, where towns sit directly under a city)
    towncode  INTEGER           -- 12-digit town code
);
CREATE INDEX poi_name ON poi (name);
-- The categories in use, so a category given by name (餐饮, 高等院校) becomes a set of codes
-- without scanning the POIs.
CREATE TABLE category (
    typecode TEXT PRIMARY KEY,
    type     TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX poi_adcode ON poi (adcode);

-- POI points; id = poi.rowid. The exact coordinates and the category code ride along as
-- auxiliary columns so a radius query computes distances and filters by category without
-- touching the poi table.
CREATE VIRTUAL TABLE poi_rtree USING rtree (
    id, min_lng, max_lng, min_lat, max_lat,
    +lng REAL,
    +lat REAL,
    +typecode INTEGER
);

-- Full-text search. Chinese has no spaces and users type 1- and 2-character queries, which a
-- trigram index cannot answer, so the library writes its own tokens (see SearchTokens):
--   grams: each CJK run as overlapping character bigrams (a 1-character run as itself), and
--          each Latin/digit word lower-cased; a query of 2+ characters becomes a phrase of the
--          same tokens, so substrings match at any position;
--   chars: each CJK character once, for 1-character queries.
-- A POI's address is not indexed: every query asks the name columns (a column of address
-- tokens, never asked, cost an import a third of its FTS5 work).
-- Contentless: the text lives in region/poi; deleting re-derives the tokens from it.
-- No column sizes: nothing ranks by bm25, and they cost a write per row.
CREATE VIRTUAL TABLE region_fts USING fts5 (
    grams, chars, pinyin,
    content = '', columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 0'
);

CREATE VIRTUAL TABLE poi_fts USING fts5 (
    grams, chars,
    content = '', columnsize = 0,
    tokenize = 'unicode61 remove_diacritics 0'
);

-- Cells precomputed for batch reverse geocoding (see StoredBatchCells): kind names the region
-- cells and the rules that built them (StoredBatchCells.region: a binary with other rules reads
-- none of another's, and an import deletes any other kind), the data_generation they were built
-- for (a row of any other generation is stale and not read), and the cells in the library's
-- binary layout (empty: they could not be built for that data). Optional, so no version change:
-- a database made before it holds no such table, and its first import that changes data makes
-- it with this same statement (StoredDerived.createTable).
CREATE TABLE IF NOT EXISTS batch_cells (
    kind       TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    data       BLOB NOT NULL
);

-- The geocoder's name table (see StoredNameTable), stored by the importer the same way
-- (StoredDerived): kind names the rules and compiled-in tables that built it, generation the
-- data, data the table in the library's binary layout (empty: it could not be built). Optional
-- like batch_cells: a database without it is geocoded by building the table in memory.
CREATE TABLE IF NOT EXISTS geocode_names (
    kind       TEXT PRIMARY KEY,
    generation INTEGER NOT NULL,
    data       BLOB NOT NULL
);
