import GazetteerCore

/// How `Importer` treats its input.
public struct ImportOptions: Sendable {
    /// Replace the whole dataset (regions, boundaries, POIs) instead of merging by id.
    public var replace = false
    /// Import the valid rows and write the invalid ones, with reasons, to `rejectsPath`,
    /// instead of refusing the whole import.
    public var skipInvalid = false
    /// Where `skipInvalid` writes rejected rows (CSV). Default: `gazetteer-rejects.csv`.
    public var rejectsPath: String?
    /// The text encoding of the input files.
    public var encoding: TextEncoding = .utf8
    /// The coordinate system of the input's coordinates; they are stored as GCJ-02.
    public var coordinateSystem: CoordinateSystem = .gcj02
    /// Recorded in the database's metadata, e.g. `seed-2026.04`.
    public var datasetVersion: String?
    /// Recorded in the database's metadata; default: the imported file names.
    public var datasetSources: String?
    /// Most errors listed before an all-or-nothing import gives up.
    public var maxErrors = 50
    /// POI files larger than this (in all) are indexed in bulk after the rows are in: the
    /// R*Tree is rebuilt packed and the secondary indexes recreated, instead of row by row.
    var bulkIndexBytes = 8 << 20
    /// A bulk-built R*Tree of up to this many POIs is sorted in memory, a bigger one by SQLite
    /// (tests ask for both).
    var rtreeInMemoryPoints = RTreeBulkLoader.inMemoryPoints
    /// Whether a bulk import builds the POI search index aside (`SideSearchIndex`): when it
    /// pays, or (tests) always or never.
    var searchIndexAside = WhenItPays.whenItPays
    /// Bytes of postings the side search index holds before it writes a segment, through FTS5
    /// (its `hashsize`) or its own (`SearchPostings`); tests ask for many segments.
    var searchIndexPendingBytes = 64 << 20
    /// New POIs a bulk import inserts with one statement (`ImportRun.writeGroup`; tests ask for 1,
    /// one by one, to compare). One to a statement, a POI's insert took about 14,300
    /// instructions, much of it the statement's own (its program started and halted, its
    /// cursors opened and closed); 64 to a statement, 11,400.
    var rowsPerInsert = 64

    /// When an import takes a path that pays only for big imports.
    enum WhenItPays: Sendable { case whenItPays, always, never }
    /// Whether the import writes into a copy renamed over the database (`ImportCopy`): when it
    /// pays, always or never; in any case only when nobody else has it open.
    ///
    /// Never, by default: another program's connection opened on the database but not yet read
    /// through holds no lock, so the rename can come; that connection then works on the old
    /// file with the new file's -wal and -shm, and a write from it breaks the new database (a
    /// review reproduced it with Python's sqlite3). Until the old file is made unusable at the
    /// rename, imports are written in place.
    var importByCopy = WhenItPays.never
    /// How long an import by copy waits for the other connections on the database to close
    /// before the rename, and a third of it before it starts (readers the CLI starts take
    /// milliseconds; a `serve` keeps the file open, and the import then goes the usual way).
    var exclusiveWaitMilliseconds: Int32 = 3_000
    /// Runs between the end of an import by copy and its exclusive lock (tests).
    var beforeExclusiveLock: (@Sendable () -> Void)?

    public init() {}
}

/// Where an import is, for progress bars.
public struct ImportProgress: Sendable {
    public var file: String
    /// Rows read so far, over all files.
    public var rows: Int
    public var bytesDone: Int
    public var bytesTotal: Int
    public var elapsedSeconds: Double
    /// True for the last report, once all rows are in.
    public var finished: Bool
}

/// What an import did.
public struct ImportSummary: Sendable, Codable, Equatable {
    public struct Counts: Sendable, Codable, Equatable {
        public var inserted = 0
        public var updated = 0
        public var unchanged = 0
        public var total: Int { inserted + updated + unchanged }
    }
    public var regions = Counts()
    public var boundaries = Counts()
    public var pois = Counts()
    public var rejected = 0
    /// Where the rejects went, when any were written.
    public var rejectsPath: String?
    /// POIs whose district or town was worked out from the boundaries.
    public var poisLocated = 0
    public var seconds = 0.0
}
