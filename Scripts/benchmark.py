#!/usr/bin/env python3
"""The national-scale benchmark: gazetteer beside the tools people would use instead.

Run it through Scripts/benchmark.sh, which installs the peers and builds the release binaries:

    Scripts/benchmark.sh                 # 1,000,000 generated POIs
    Scripts/benchmark.sh --size 10000000 # 10M
    Scripts/benchmark.sh --size 20000 --queries 200 --batch-points 20000   # a smoke run

For one POI count it generates the POI CSV (Scripts/generate_pois.py, cached), imports it into
each tool's database, writes one file of inputs per case (points, words, addresses) that every
tool then answers, and prints for each operation the median and p99 latency, throughput and peak
memory of each tool, with our ratio to each peer. Results also go to bench-out/ as
benchmark-SIZE.md and benchmark-SIZE.json.

Tools (a peer that cannot be installed or fails is reported as such):

* gazetteer: `gazetteer import` (whole command; in turn with sqlite3's bare `.import`,
  --import-rounds times, the median reported, after --import-warmups untimed rounds of each,
  once the writes of the build are flushed) and
  `gazetteer-bench run` (the public library API
  in process, one process per case, a warm-up pass over the inputs, then each query timed once);
  `gazetteer reverse --batch --radius 0` for the batch (whole command: start, open, answer,
  write), on points inside China and on points uniform in 98–122°E, 22–42°N (land, sea and
  neighbouring countries), in turn with reverse_geocoder's batch, --batch-rounds times (the
  median reported) after --batch-warmups untimed rounds of each, once the writes of the steps
  before are flushed.
* sqlite3 shell, the raw SQLite floor: `.import` into a bare table; for queries the R*Tree and
  FTS5 statements the library itself relies on, on our database: the region R*Tree box lookup
  (reverse), the POI R*Tree box ordered by distance (nearby), the FTS5 MATCH (search). Latency per
  statement is `.timer on`'s user+sys CPU time (microseconds; its wall column has milliseconds
  only) minus the same for an empty statement; the statements run twice, only the second pass
  is counted.
* SpatiaLite (mod_spatialite, loaded into Python's sqlite3 from Debian, in process): a POI table
  with a POINT geometry and a spatial index, district polygons (MULTIPOLYGON) with theirs, queried
  the way SpatiaLite's documentation writes it: ST_Contains through the SpatialIndex (reverse),
  ST_Distance(..., 1) in metres over the SpatialIndex frame of the radius (nearby), and
  `name LIKE '%word%'` (keyword: SpatiaLite has no text index).
* PostgreSQL + PostGIS (Debian, a throw-away cluster on a Unix socket, run as the postgres user):
  import only: psql's `\\copy` of the CSV into a table, then a PostGIS point column, two GiST
  indexes (the geometry, and the geography for distances in metres) and one GIN (pg_trgm on
  name and address), the way PostgreSQL's own documentation builds them after a bulk load;
  timed from the COPY to the last index (server start not counted), with the server's CPU.
* reverse_geocoder (PyPI): nearest of ~140,000 GeoNames places through a k-d tree, single
  (`rg.search([point], mode=1)`) and batch (`rg.search(points)`, its default multiprocess mode,
  the query call alone timed on a tree already loaded), on the same points as ours.

Peers whose queries are slow (SpatiaLite LIKE scans, reverse_geocoder single) are timed on at
most --peer-queries inputs and stop after --peer-seconds; sqlite3 statements that would take
longer than --peer-seconds in all (an ORDER BY over every match) run on fewer inputs. The number
of queries measured is printed.
"""

import argparse
import csv
import json
import math
import os
import platform
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED_DIR = os.path.join(ROOT, "seed")
BIN = os.path.join(ROOT, ".build", "release", "gazetteer")
BENCH = os.path.join(ROOT, ".build", "release", "gazetteer-bench")
CORES = [("人民广场", 121.4737, 31.2304), ("天安门", 116.3975, 39.9087), ("福田", 114.0579, 22.5431)]
# Cities whose towns sit directly under the city: their city polygon is their "district".
CITIES_WITHOUT_DISTRICTS = {441900, 442000, 460400, 620200}
HAN = re.compile(r"^[\u4e00-\u9fff]+$")
TYPICAL_ADDRESSES = [
    "北京市朝阳区望京街道阜通东大街6号", "浙江省杭州市西湖区灵隐街道法云弄16号", "上海市黄浦区人民大道200号",
    "广东省深圳市福田区福华三路", "北京大学", "杭州西湖区", "浙江杭州西湖灵隐", "西湖区灵隐街道",
    "江苏省南京市鼓楼区汉口路22号", "四川省成都市武侯区人民南路四段", "天安门", "湖北省武汉市洪山区珞喻路1037号",
]


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Child:
    """A child process whose own peak RSS we read (wait4), not the maximum over all children."""

    def __init__(self, argv, stdout=subprocess.PIPE, stdin=None):
        self.argv = argv
        self.start = time.perf_counter()
        # stderr to a file, not a pipe: a child that fills a stderr pipe while we read its
        # stdout would never exit.
        self.err = tempfile.TemporaryFile()
        self.p = subprocess.Popen(argv, stdout=stdout, stderr=self.err, stdin=stdin)

    def wait(self):
        out = self.p.stdout.read() if self.p.stdout else None
        _, status, usage = os.wait4(self.p.pid, 0)
        self.p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - self.start
        self.err.seek(0)
        err = self.err.read()
        self.err.close()
        if self.p.returncode != 0:
            log(f"  `{' '.join(self.argv[:3])} …` exited {self.p.returncode}: "
                f"{err.decode(errors='replace').strip()[-800:]}")
        self.cpu = usage.ru_utime + usage.ru_stime
        return self.p.returncode, out, wall, usage.ru_maxrss


def child(argv, stdout=subprocess.PIPE, stdin=None):
    return Child(argv, stdout=stdout, stdin=stdin).wait()


def child_cpu(argv, stdout=subprocess.PIPE, stdin=None):
    """child(), plus the child's user+sys CPU seconds (on a busy machine wall time mostly waits)."""
    c = Child(argv, stdout=stdout, stdin=stdin)
    code, out, wall, rss = c.wait()
    return code, out, wall, rss, c.cpu


def percentile(sorted_values, q):
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(len(sorted_values) * q))]


def stats(times_us, results, rss_kb, note=""):
    t = sorted(times_us)
    mean = sum(t) / len(t)
    return {"queries": len(t), "p50_us": percentile(t, 0.5), "p99_us": percentile(t, 0.99), "mean_us": mean,
            "per_second": 1e6 / mean if mean > 0 else float("inf"),
            "mean_results": results / len(t), "peak_rss_kb": rss_kb, "note": note}


def file_size(path):
    return sum(os.path.getsize(path + s) for s in ("", "-wal") if os.path.exists(path + s))


# ------------------------------------------------------------------------------------------
# Data and databases
# ------------------------------------------------------------------------------------------

def generate_csv(args):
    path = os.path.join(args.out, f"pois-{args.size}-s{args.seed}.csv")
    if not os.path.exists(path):
        log(f"generating {args.size:,} POIs → {path}")
        tmp = path + ".tmp"
        subprocess.run([sys.executable, os.path.join(ROOT, "Scripts", "generate_pois.py"), "--rows", str(args.size),
                        "--seed", str(args.seed), "--out", tmp], check=True)
        os.replace(tmp, path)
    return path


def seed_database(args):
    """Our database of the seed folder (regions, boundaries, 9,467 POIs), made once."""
    path = os.path.join(args.out, "benchmark-seed.db")
    schema = open(os.path.join(ROOT, "schema.sql"), encoding="utf-8").read()
    version = re.search(r"PRAGMA user_version\s*=\s*(\d+)", schema).group(1)
    ok = os.path.exists(path)
    if ok:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as c:
            ok = str(c.execute("PRAGMA user_version").fetchone()[0]) == version
    if not ok:
        for s in ("", "-wal", "-shm"):
            if os.path.exists(path + s):
                os.remove(path + s)
        log("importing seed/ into the seed database")
        code, _, _, _ = child([BIN, "import", "--db", path, SEED_DIR], stdout=subprocess.DEVNULL)
        if code != 0:
            sys.exit("benchmark: the seed import failed")
        checkpoint(path)
    return path


def checkpoint(path):
    with sqlite3.connect(path) as c:
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")


def import_ours(args, csv_path, seed_db):
    db = os.path.join(args.out, f"benchmark-{args.size}.db")
    for s in ("", "-wal", "-shm"):
        if os.path.exists(db + s):
            os.remove(db + s)
    shutil.copyfile(seed_db, db)
    # Nothing left to write back when the clock starts: the copy, the removal, the steps before.
    os.sync()
    before = file_size(db)
    log(f"gazetteer import of {args.size:,} POIs")
    code, _, wall, rss, cpu = child_cpu([BIN, "import", "--db", db, csv_path], stdout=subprocess.DEVNULL)
    if code != 0:
        sys.exit("benchmark: gazetteer import failed")
    checkpoint(db)
    return db, {"seconds": wall, "cpu_seconds": cpu, "rows_per_s": args.size / wall, "peak_rss_kb": rss,
                "bytes_per_poi": (file_size(db) - before) / args.size}


def import_floor(args, csv_path):
    db = os.path.join(args.out, f"benchmark-{args.size}-bare.db")
    if os.path.exists(db):
        os.remove(db)
    script = ("CREATE TABLE poi(id TEXT, name TEXT, type TEXT, typecode TEXT, address TEXT, phone TEXT, "
              "lng REAL, lat REAL, adcode INTEGER, towncode INTEGER);\n"
              f".import --csv --skip 1 '{csv_path}' poi\n")
    log("sqlite3 .import into a bare table")
    # As `import_ours`: nothing left to write back when the clock starts.
    os.sync()
    code, _, wall, rss, cpu = child_cpu(["sqlite3", db], stdin=_pipe_text(script))
    if code != 0:
        return None
    return {"seconds": wall, "cpu_seconds": cpu, "rows_per_s": args.size / wall, "peak_rss_kb": rss,
            "bytes_per_poi": file_size(db) / args.size}


def pg_bin():
    """The newest installed PostgreSQL server's bin folder, or None."""
    base = "/usr/lib/postgresql"
    versions = sorted((v for v in os.listdir(base) if v.isdigit()), key=int) if os.path.isdir(base) else []
    for v in reversed(versions):
        b = os.path.join(base, v, "bin")
        if os.path.exists(os.path.join(b, "initdb")):
            return b
    return None


def pg_missing():
    """Why the PostgreSQL peer cannot run, or None."""
    b = pg_bin()
    if not b:
        return "not installed (apt-get install postgresql postgresql-15-postgis-3)"
    lib = os.path.join(os.path.dirname(b), "lib")
    if not os.path.exists(os.path.join(lib, "postgis-3.so")):
        return f"PostGIS not installed (apt-get install postgresql-{os.path.basename(os.path.dirname(b))}-postgis-3)"
    if os.geteuid() == 0:
        try:
            import pwd
            pwd.getpwnam("postgres")
        except KeyError:
            return "no postgres user to run the server as"
    return None


def _proc_cpu(pid, children=True):
    """user+sys CPU seconds of a live process (with its reaped children when asked)."""
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    t = int(f[11]) + int(f[12]) + ((int(f[13]) + int(f[14])) if children else 0)
    return t / os.sysconf("SC_CLK_TCK")


def _pg_cpu(postmaster):
    """CPU of the server: the postmaster, the backends it reaped, and the ones still alive."""
    total = _proc_cpu(postmaster)
    for d in os.listdir("/proc"):
        if d.isdigit() and d != str(postmaster):
            try:
                ppid = int(open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == postmaster:
                total += _proc_cpu(int(d))
    return total


def import_postgres(args, csv_path):
    """COPY into PostgreSQL, then a PostGIS point, two GiST and one GIN index, in a throw-away
    cluster. Returns the figures, or a string saying why not."""
    why = pg_missing()
    if why:
        return why
    b = pg_bin()
    root = os.geteuid() == 0
    work = tempfile.mkdtemp(prefix="gazetteer-pg-", dir="/tmp")
    as_pg = (lambda argv: ["runuser", "-u", "postgres", "--"] + argv) if root else (lambda argv: argv)
    data, sock = os.path.join(work, "data"), work
    if root:
        shutil.chown(work, "postgres", "postgres")
    log("PostgreSQL COPY + PostGIS point + 2 GiST + 1 GIN")
    try:
        r = subprocess.run(as_pg([os.path.join(b, "initdb"), "-D", data, "-A", "trust", "-E", "UTF8", "--locale", "C.UTF-8", "-U", "postgres"]),
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "initdb failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:90]
        # Settings a bulk load is given; the server is durable as usual (fsync on).
        opts = f"-k {sock} -c listen_addresses='' -c shared_buffers=256MB -c maintenance_work_mem=256MB -c max_wal_size=4GB -c port=5439"
        r = subprocess.run(as_pg([os.path.join(b, "pg_ctl"), "-D", data, "-l", os.path.join(work, "log"), "-w", "-o", opts, "start"]),
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "pg_ctl start failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:90]
        postmaster = int(open(os.path.join(data, "postmaster.pid")).readline())
        psql = as_pg(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", sock, "-p", "5439", "-U", "postgres", "-d", "postgres"])
        r = subprocess.run(psql + ["-c", "CREATE EXTENSION postgis; CREATE EXTENSION pg_trgm;"], capture_output=True, text=True)
        if r.returncode != 0:
            return "CREATE EXTENSION failed: " + (r.stderr.strip().splitlines() or ["?"])[-1][:90]
        csv_copy = os.path.join(work, "pois.csv")  # readable by the postgres user
        shutil.copyfile(csv_path, csv_copy)
        if root:
            shutil.chown(csv_copy, "postgres", "postgres")
        script = ("CREATE TABLE poi (id text PRIMARY KEY, name text NOT NULL, type text, typecode text, address text, phone text, "
                  "lng double precision NOT NULL, lat double precision NOT NULL, adcode integer, towncode bigint);\n"
                  f"\\copy poi (id, name, type, typecode, address, phone, lng, lat, adcode, towncode) FROM '{csv_copy}' WITH (FORMAT csv, HEADER true)\n"
                  "ALTER TABLE poi ADD COLUMN geom geometry(Point, 4326);\n"
                  "UPDATE poi SET geom = ST_SetSRID(ST_MakePoint(lng, lat), 4326);\n"
                  "CREATE INDEX poi_geom ON poi USING gist (geom);\n"
                  "CREATE INDEX poi_geog ON poi USING gist ((geom::geography));\n"
                  "CREATE INDEX poi_text ON poi USING gin ((name || ' ' || coalesce(address, '')) gin_trgm_ops);\n"
                  "CHECKPOINT;\n")
        cpu0 = _pg_cpu(postmaster)
        code, _, wall, _, cpu = child_cpu(psql, stdin=_pipe_text(script))
        cpu += _pg_cpu(postmaster) - cpu0
        if code != 0:
            return "COPY or an index failed (see the log above)"
        r = subprocess.run(psql + ["-At", "-c", "SELECT pg_total_relation_size('poi')"], capture_output=True, text=True)
        size = int(r.stdout.strip() or 0)
        return {"seconds": wall, "cpu_seconds": cpu, "rows_per_s": args.size / wall, "peak_rss_kb": None,
                "bytes_per_poi": size / args.size}
    finally:
        subprocess.run(as_pg([os.path.join(b, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]), capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


def _pipe_text(text):
    """A readable file object holding text, for a child's stdin."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        with os.fdopen(w, "wb") as f:
            f.write(text.encode())
        os._exit(0)
    os.close(w)
    return os.fdopen(r, "rb")


def spatialite_connect(path):
    c = sqlite3.connect(path, isolation_level=None)
    c.enable_load_extension(True)
    c.load_extension("mod_spatialite")
    return c


def spatialite_import(db, seed_csv, poi_csv, size):
    """Builds the SpatiaLite database; prints the POI part's figures as JSON (run in a child)."""
    for s in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(db + s):
            os.remove(db + s)
    c = spatialite_connect(db)
    c.execute("SELECT InitSpatialMetadata(1)")
    c.execute("CREATE TABLE district (code INTEGER PRIMARY KEY, level INTEGER)")
    c.execute("SELECT AddGeometryColumn('district', 'geom', 4326, 'MULTIPOLYGON', 'XY')")
    csv.field_size_limit(1 << 30)
    c.execute("BEGIN")
    for level, name in ((2, "boundaries_district.csv"), (1, "boundaries_city.csv")):
        with open(os.path.join(SEED_DIR, name), encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                code = int(row["code"])
                if level == 1 and code not in CITIES_WITHOUT_DISTRICTS:
                    continue
                c.execute("INSERT INTO district VALUES (?, ?, CastToMultiPolygon(GeomFromText(?, 4326)))",
                          (code, level, row["geometry"]))
    c.execute("COMMIT")
    c.execute("SELECT CreateSpatialIndex('district', 'geom')")
    c.close()
    before = file_size(db)

    start = time.perf_counter()
    c = spatialite_connect(db)
    c.execute("CREATE TABLE poi (pk INTEGER PRIMARY KEY, id TEXT UNIQUE, name TEXT, type TEXT, typecode TEXT, "
              "address TEXT, phone TEXT, adcode INTEGER, towncode INTEGER)")
    c.execute("SELECT AddGeometryColumn('poi', 'geom', 4326, 'POINT', 'XY')")
    c.execute("BEGIN")
    sql = ("INSERT INTO poi (id, name, type, typecode, address, phone, adcode, towncode, geom) "
           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, MakePoint(?, ?, 4326))")

    def rows(path):
        with open(path, encoding="utf-8-sig", newline="") as f:
            for r in csv.DictReader(f):
                yield (r["id"], r["name"], r["type"], r["typecode"], r["address"], r["phone"],
                       r["adcode"] or None, r["towncode"] or None, float(r["lng"]), float(r["lat"]))

    c.executemany(sql, rows(seed_csv))
    seed_seconds = time.perf_counter() - start
    start = time.perf_counter()
    c.executemany(sql, rows(poi_csv))
    c.execute("COMMIT")
    c.execute("SELECT CreateSpatialIndex('poi', 'geom')")
    c.close()
    wall = time.perf_counter() - start
    print(json.dumps({"seconds": wall, "rows_per_s": size / wall, "seed_seconds": seed_seconds,
                      "bytes_per_poi": (file_size(db) - before) / (size + 9467),
                      "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))


def import_spatialite(args, csv_path, py):
    db = os.path.join(args.out, f"benchmark-{args.size}-spatialite.db")
    log("SpatiaLite: district polygons, then the POIs with a spatial index")
    code, out, wall, rss = child([py, __file__, "_spatialite_import", db, os.path.join(SEED_DIR, "pois.csv"),
                                  csv_path, str(args.size)])
    if code != 0:
        return db, None
    r = json.loads(out.decode().strip().splitlines()[-1])
    r["peak_rss_kb"] = rss
    return db, r


# ------------------------------------------------------------------------------------------
# Inputs
# ------------------------------------------------------------------------------------------

def core_points(n, rng, radius=3000.0):
    out = []
    for i in range(n):
        _, lng, lat = CORES[i % len(CORES)]
        r = radius * math.sqrt(rng.random())
        a = rng.random() * 2 * math.pi
        out.append((lng + r * math.cos(a) / (111_320 * math.cos(math.radians(lat))), lat + r * math.sin(a) / 110_574))
    return out


def points_inside_china(db, count, seed, path):
    if not os.path.exists(path):
        with open(path + ".tmp", "wb") as f:
            code, _, _, _ = child([BENCH, "points", "--db", db, "--count", str(count), "--seed", str(seed)], stdout=f)
        if code != 0:
            sys.exit("benchmark: gazetteer-bench points failed")
        os.replace(path + ".tmp", path)
    return path


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
    return path


def search_words(db, rng, per_class=20):
    """Words from the database's own vocabulary: 1, 2 and 3+ characters, common and rare."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    c.execute("CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(main, 'poi_fts', 'col')")
    words = {}
    for length, column in ((1, "chars"), (2, "grams")):
        terms = [(t, d) for t, d in c.execute("SELECT term, doc FROM temp.vocab WHERE col = ? ORDER BY doc DESC", (column,))
                 if len(t) == length and HAN.match(t)]
        words[f"{length}-common"] = [t for t, _ in terms[:per_class]]
        rare = sorted(t for t, d in terms if d <= 5)
        words[f"{length}-rare"] = rng.sample(rare, min(per_class, len(rare)))
    # 3+ characters: the most frequent 3- and 4-character runs in a sample of names, and whole
    # names that only one POI has.
    total = c.execute("SELECT max(rowid) FROM poi").fetchone()[0] or 0
    step = max(1, total // 50_000)
    counts = {}
    names = []
    for (name,) in c.execute("SELECT name FROM poi WHERE rowid % ? = 0", (step,)):
        names.append(name)
        for run in re.findall(r"[\u4e00-\u9fff]+", name):
            for n in (3, 4):
                for i in range(len(run) - n + 1):
                    counts[run[i:i + n]] = counts.get(run[i:i + n], 0) + 1
    words["3+-common"] = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:per_class]]
    rare = []
    population = sorted(set(n for n in names if HAN.match(n) and 3 <= len(n) <= 8))
    for name in rng.sample(population, min(2000, len(population))):
        if c.execute("SELECT count(*) FROM poi WHERE name = ?", (name,)).fetchone()[0] == 1:
            rare.append(name)
            if len(rare) == per_class:
                break
    words["3+-rare"] = rare
    c.close()
    return words


def geocode_addresses(db, rng, n=300):
    """Addresses as people paste them: hand-written ones, 省市区 + a POI's street address, 市 + a POI's name."""
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    total = c.execute("SELECT max(rowid) FROM poi").fetchone()[0] or 1
    names = {code: name for code, name in c.execute("SELECT code, name FROM region WHERE level <= 2")}
    parents = {code: parent for code, parent in c.execute("SELECT code, parent FROM region WHERE level <= 2")}
    out = list(TYPICAL_ADDRESSES)
    while len(out) < n:
        row = c.execute("SELECT name, address, adcode FROM poi WHERE rowid = ?", (rng.randint(1, total),)).fetchone()
        if not row or not row[2]:
            continue
        chain, code = [], row[2]
        while code in names:
            chain.insert(0, names[code])
            code = parents.get(code)
        chain = [x for i, x in enumerate(chain) if x not in chain[:i]]
        if row[1] and len(out) % 2 == 0:
            out.append("".join(chain) + row[1])
        elif len(chain) >= 2:
            out.append(chain[-2] + row[0])
    c.close()
    return out


def make_inputs(args, db, seed_db):
    d = os.path.join(args.out, f"inputs-{args.size}-s{args.seed}-q{args.queries}")
    os.makedirs(d, exist_ok=True)
    rng = random.Random(args.seed)
    q = args.queries
    inputs = {
        "reverse": points_inside_china(seed_db, q, args.seed + 1, os.path.join(d, "reverse.txt")),
        "batch": points_inside_china(seed_db, args.batch_points, args.seed + 2,
                                     os.path.join(args.out, f"points-{args.batch_points}-s{args.seed + 2}.txt")),
        "batch-box": points_in_box(args.batch_points, args.seed + 14,
                                   os.path.join(args.out, f"box-points-{args.batch_points}-s{args.seed + 14}.txt")),
        "country": points_inside_china(seed_db, q, args.seed + 3, os.path.join(d, "country.txt")),
        "core": write_lines(os.path.join(d, "core.txt"), (f"{x:.6f},{y:.6f}" for x, y in core_points(q, rng))),
    }
    for cls, words in search_words(db, rng).items():
        if not words:
            log(f"  no {cls} words in the database")
            continue
        inputs["search-" + cls] = write_lines(os.path.join(d, f"search-{cls}.txt"), (words[i % len(words)] for i in range(q)))
    if "search-2-common" in inputs:
        words = open(inputs["search-2-common"], encoding="utf-8").read().split()
        core = read_points(inputs["core"])
        inputs["search-located"] = write_lines(os.path.join(d, "search-located.txt"),
                                               (f"{w}\t{x:.6f},{y:.6f}" for w, (x, y) in zip(words, core)))
    addresses = geocode_addresses(db, rng)
    inputs["geocode"] = write_lines(os.path.join(d, "geocode.txt"), (addresses[i % len(addresses)] for i in range(q)))
    return inputs


def read_points(path, limit=None):
    pts = []
    with open(path) as f:
        for line in f:
            lng, lat = line.split(",")
            pts.append((float(lng), float(lat)))
            if limit and len(pts) == limit:
                break
    return pts


# ------------------------------------------------------------------------------------------
# Measurements
# ------------------------------------------------------------------------------------------

def ours(db, op, path, radius=None):
    argv = [BENCH, "run", "--db", db, "--op", op, "--input", path, "--limit", "20"]
    if radius is not None:
        argv += ["--radius", str(radius)]
    code, out, _, rss = child(argv)
    if code != 0:
        return {"error": "gazetteer-bench run failed"}
    r = json.loads(out.decode())
    r["peak_rss_kb"] = rss
    return r


def sql_text(s):
    return "'" + s.replace("'", "''") + "'"


def floor_statement(op, line, radius):
    if op == "reverse":
        x, y = line.split(",")
        return (f"SELECT id FROM region_rtree WHERE min_lng <= {x} AND max_lng >= {x} "
                f"AND min_lat <= {y} AND max_lat >= {y};")
    if op == "nearby":
        x, y = (float(v) for v in line.split(","))
        k = math.cos(math.radians(y))
        dlat, dlng = radius / 110_574, radius / (111_320 * k)
        return (f"SELECT id, lng, lat FROM poi_rtree WHERE min_lng <= {x + dlng:.6f} AND max_lng >= {x - dlng:.6f} "
                f"AND min_lat <= {y + dlat:.6f} AND max_lat >= {y - dlat:.6f} "
                f"ORDER BY (lng - {x:.6f}) * (lng - {x:.6f}) * {k * k:.6f} + (lat - {y:.6f}) * (lat - {y:.6f}) LIMIT 20;")
    if op == "search":
        parts = line.split("\t")
        w = parts[0]
        if len(w) == 1:
            match = f'chars : "{w}"'
        else:
            match = 'grams : "' + " ".join(w[i:i + 2] for i in range(len(w) - 1)) + '"'
        if len(parts) == 1:
            return f"SELECT rowid FROM poi_fts WHERE poi_fts MATCH {sql_text(match)} LIMIT 20;"
        x, y = (float(v) for v in parts[1].split(","))
        k = math.cos(math.radians(y))
        return (f"SELECT p.rowid FROM poi_fts AS f JOIN poi AS p ON p.rowid = f.rowid WHERE poi_fts MATCH {sql_text(match)} "
                f"ORDER BY (p.lng - {x:.6f}) * (p.lng - {x:.6f}) * {k * k:.6f} + (p.lat - {y:.6f}) * (p.lat - {y:.6f}) LIMIT 20;")
    return None


TIMER = re.compile(r"^Run Time: real [\d.]+ user ([\d.]+) sys ([\d.]+)")


def floor(db, op, path, radius=None, budget=8.0):
    """The same R*Tree / FTS5 statement the library relies on, through the sqlite3 shell.
    Statements slow enough to blow `budget` seconds (an unbounded ORDER BY over every match)
    are run on fewer inputs: a first shell run times 20 of them to choose how many."""
    lines = [l for l in open(path, encoding="utf-8").read().splitlines() if l]
    statements = [floor_statement(op, l, radius) for l in lines]
    probe = statements[:20]
    start = time.perf_counter()
    code, _, _, _ = child(["sqlite3", "-readonly", db], stdin=_pipe_text("\n".join(probe) + "\n"))
    per = (time.perf_counter() - start) / len(probe)
    if code == 0 and per * 2 * len(statements) > budget:
        statements = statements[:max(20, int(budget / (2 * per)))]
    empty = ["SELECT 1 WHERE 0;"] * len(statements)
    # Results stay on stdout with the timer lines (some shell versions print `.timer` to the
    # current output, so `.output /dev/null` would hide them); only `Run Time:` lines are read.
    script = ["PRAGMA mmap_size = 1073741824;"] + statements + empty
    script += [".timer on"] + statements + empty + [".timer off"]
    code, out, _, rss = child(["sqlite3", "-readonly", db], stdin=_pipe_text("\n".join(script) + "\n"))
    if code != 0:
        return {"error": "sqlite3 failed"}
    times = [(float(m.group(1)) + float(m.group(2))) * 1e6 for m in map(TIMER.match, out.decode().splitlines()) if m]
    if len(times) != 2 * len(statements):
        return {"error": f"sqlite3 printed {len(times)} timings for {2 * len(statements)} statements"}
    base = sorted(times[len(statements):])
    baseline = percentile(base, 0.5)
    q = [max(0.0, t - baseline) for t in times[:len(statements)]]
    return stats(q, 0, rss, note=f"CPU time per statement minus {baseline:.1f} µs for an empty one")


def spatialite_case(db, op, path, radius, max_queries, max_seconds):
    """Runs in a child: one case through SpatiaLite, printed as JSON."""
    c = spatialite_connect(f"file:{db}?mode=ro")
    if op == "reverse":
        sql = ("SELECT d.code FROM district AS d WHERE d.ROWID IN (SELECT ROWID FROM SpatialIndex "
               "WHERE f_table_name = 'district' AND search_frame = MakePoint(:x, :y, 4326)) "
               "AND ST_Contains(d.geom, MakePoint(:x, :y, 4326))")
    elif op == "nearby":
        sql = ("SELECT p.id, p.name, ST_Distance(p.geom, MakePoint(:x, :y, 4326), 1) AS d FROM poi AS p "
               "WHERE p.ROWID IN (SELECT ROWID FROM SpatialIndex WHERE f_table_name = 'poi' "
               "AND search_frame = BuildMbr(:x0, :y0, :x1, :y1, 4326)) AND d <= :r ORDER BY d LIMIT 20")
    elif op == "search" and "\t" not in open(path, encoding="utf-8").readline():
        sql = "SELECT id, name FROM poi WHERE name LIKE '%' || :w || '%' LIMIT 20"
    else:
        sql = ("SELECT id, name, ST_Distance(geom, MakePoint(:x, :y, 4326), 1) AS d FROM poi "
               "WHERE name LIKE '%' || :w || '%' ORDER BY d LIMIT 20")
    params = []
    for line in open(path, encoding="utf-8").read().splitlines()[:max_queries]:
        if op == "search":
            parts = line.split("\t")
            p = {"w": parts[0]}
            if len(parts) > 1:
                p["x"], p["y"] = (float(v) for v in parts[1].split(","))
            params.append(p)
            continue
        x, y = (float(v) for v in line.split(","))
        p = {"x": x, "y": y}
        if op == "nearby":
            dlat, dlng = radius / 110_574, radius / (111_320 * math.cos(math.radians(y)))
            p.update(x0=x - dlng, y0=y - dlat, x1=x + dlng, y1=y + dlat, r=radius)
        params.append(p)
    deadline = time.perf_counter() + max_seconds / 3
    for p in params:  # warm-up pass, bounded in time
        c.execute(sql, p).fetchall()
        if time.perf_counter() > deadline:
            break
    times, results = [], 0
    deadline = time.perf_counter() + max_seconds
    for p in params:
        t = time.perf_counter()
        results += len(c.execute(sql, p).fetchall())
        times.append((time.perf_counter() - t) * 1e6)
        if time.perf_counter() > deadline:
            break
    print(json.dumps(stats(times, results, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))


def spatialite(args, py, db, op, path, radius=None):
    code, out, _, rss = child([py, __file__, "_spatialite_case", db, op, path, str(radius or 0),
                               str(args.peer_queries), str(args.peer_seconds)])
    if code != 0:
        return {"error": "SpatiaLite query failed"}
    r = json.loads(out.decode().strip().splitlines()[-1])
    r["peak_rss_kb"] = rss
    return r


def rg_single(path, max_queries, max_seconds):
    """Runs in a child: reverse_geocoder one point at a time."""
    import reverse_geocoder as rg
    pts = [(lat, lng) for lng, lat in read_points(path, max_queries)]
    rg.search([pts[0]], mode=1, verbose=False)  # loads the k-d tree
    deadline = time.perf_counter() + max_seconds / 3
    for p in pts:
        rg.search([p], mode=1, verbose=False)
        if time.perf_counter() > deadline:
            break
    times = []
    deadline = time.perf_counter() + max_seconds
    for p in pts:
        t = time.perf_counter()
        rg.search([p], mode=1, verbose=False)
        times.append((time.perf_counter() - t) * 1e6)
        if time.perf_counter() > deadline:
            break
    print(json.dumps(stats(times, len(times), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)))


RG_BATCH = """
import json, sys, time, reverse_geocoder as rg
pts = []
with open(sys.argv[1]) as f:
    for line in f:
        lng, lat = line.split(",")
        pts.append((float(lat), float(lng)))
rg.RGeocoder(mode=2, verbose=False)  # load the places and build the k-d tree, untimed
t = time.perf_counter()
found = rg.search(pts, verbose=False)  # the query call alone is timed
seconds = time.perf_counter() - t
out = sys.stdout
for r in found:
    out.write(r["cc"] + "," + r["admin1"] + "," + r["admin2"] + "," + r["name"] + "\\n")
with open(sys.argv[2], "w") as f:
    json.dump({"query_seconds": seconds}, f)
"""


def points_in_box(count, seed, path, box=(98.0, 22.0, 122.0, 42.0)):
    """Points uniform in a box (default 98–122°E, 22–42°N: China's east, its seas and
    neighbours, as real traces spread), six decimals, reproducible from the seed."""
    if not os.path.exists(path):
        rng = random.Random(seed)
        write_lines(path + ".tmp", (f"{rng.uniform(box[0], box[2]):.6f},{rng.uniform(box[1], box[3]):.6f}" for _ in range(count)))
        os.replace(path + ".tmp", path)
    return path


# ------------------------------------------------------------------------------------------
# Report
# ------------------------------------------------------------------------------------------

def fmt_us(v):
    if v is None or v != v:
        return "—"
    return f"{v:,.0f}" if v >= 100 else f"{v:.1f}"


def median_run(runs):
    """The middle round of `runs` (of an even number, the faster of the two middle ones), with the
    largest peak memory of them all and every round's seconds."""
    chosen = dict(sorted(runs, key=lambda r: r["seconds"])[(len(runs) - 1) // 2])
    rss = [r["peak_rss_kb"] for r in runs if r.get("peak_rss_kb")]
    chosen["peak_rss_kb"] = max(rss) if rss else None
    chosen["rounds_seconds"] = [round(r["seconds"], 3) for r in runs]
    return chosen


def rounds_text(r):
    """A side's rounds as printed under its table: '0.58, 0.56, 0.58 s', or why there are none."""
    if not isinstance(r, dict):
        return r or "failed"
    return ", ".join(f"{t:.2f}" for t in r["rounds_seconds"]) + " s"


def ratio_words(ours_v, peer_v, lower_is_better=True, unit="faster"):
    """'12× faster' / '3.1× slower' for ours against a peer."""
    if not ours_v or not peer_v or ours_v != ours_v or peer_v != peer_v:
        return "—"
    r = peer_v / ours_v if lower_is_better else ours_v / peer_v
    good, bad = {"faster": ("faster", "slower"), "smaller": ("smaller", "larger")}[unit]
    return f"{r:.2f}× {good}" if r >= 1 else f"{1 / r:.2f}× {bad}"


class Report:
    def __init__(self):
        self.sections = []  # (title, rows, notes)
        self.data = []

    def latency(self, title, results, notes=()):
        """results: [(tool, dict or None or str)]; the first is ours."""
        ours_r = results[0][1]
        rows = []
        for tool, r in results:
            if isinstance(r, str) or r is None or "error" in r:
                why = r if isinstance(r, str) else (r or {}).get("error", "not run")
                rows.append([tool, why, "", "", "", "", ""])
                continue
            ratio = "" if r is ours_r else ratio_words(ours_r.get("p50_us") if ours_r and "error" not in ours_r else None, r["p50_us"])
            rows.append([tool, fmt_us(r["p50_us"]), fmt_us(r["p99_us"]), f"{r['per_second']:,.0f}",
                         f"{r['peak_rss_kb'] / 1024:,.0f}", f"{r['queries']:,}", ratio])
        self.sections.append((title, ["tool", "p50 µs", "p99 µs", "queries/s", "peak MiB", "queries", "ours vs it (p50)"], rows, list(notes)))
        self.data.append({"case": title, "results": {t: r for t, r in results}})
        self.print_last()

    def table(self, title, header, rows, notes=(), data=None):
        self.sections.append((title, header, rows, list(notes)))
        self.data.append({"case": title, "results": data})
        self.print_last()

    def print_last(self):
        title, header, rows, notes = self.sections[-1]
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
        print(f"\n{title}")
        for row in [header] + rows:
            print("  " + "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(row, widths))))
        for n in notes:
            print("  " + n)
        sys.stdout.flush()

    def markdown(self, preamble):
        out = [preamble]
        for title, header, rows, notes in self.sections:
            out.append(f"\n### {title}\n")
            out.append("| " + " | ".join(header) + " |")
            out.append("|" + "---|" * len(header))
            for row in rows:
                out.append("| " + " | ".join(str(v) for v in row) + " |")
            for n in notes:
                out.append(f"\n{n}")
        return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=1_000_000, help="generated POIs (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=1, help="generator and input seed (default 1)")
    ap.add_argument("--queries", type=int, default=2000, help="queries per case for gazetteer and the sqlite3 floor")
    ap.add_argument("--peer-queries", type=int, default=500, help="most queries per case for SpatiaLite and reverse_geocoder single")
    ap.add_argument("--peer-seconds", type=float, default=8, help="time budget per peer case (SpatiaLite, reverse_geocoder, slow sqlite3 statements)")
    ap.add_argument("--batch-points", type=int, default=1_000_000, help="points for batch reverse geocoding")
    ap.add_argument("--batch-warmups", type=int, default=1,
                    help="untimed rounds of each side before the batch comparison's timed ones (default 1)")
    ap.add_argument("--batch-rounds", type=int, default=3,
                    help="rounds of the batch comparison, ours and reverse_geocoder's in turn; the median round is "
                         "reported, of an even number the faster middle one (default 3)")
    ap.add_argument("--import-warmups", type=int, default=1,
                    help="untimed rounds of each side before the import comparison's timed ones (default 1)")
    ap.add_argument("--import-rounds", type=int, default=5,
                    help="rounds of the import comparison, ours and the bare sqlite3 .import in turn; the median "
                         "round is reported (default 5)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench-out"), help="work folder (default bench-out/)")
    ap.add_argument("--peer-python", default=os.environ.get("BENCH_PEER_PYTHON", sys.executable),
                    help="Python with mod_spatialite loadable and reverse_geocoder installed")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    py = args.peer_python
    began = time.perf_counter()

    # Which peers are here.
    missing = {}
    if not shutil.which("sqlite3"):
        missing["sqlite3"] = "not installed (apt-get install sqlite3)"
    probe = subprocess.run([py, "-c", "import sqlite3; c = sqlite3.connect(':memory:'); c.enable_load_extension(True); "
                                      "c.load_extension('mod_spatialite'); print(c.execute('SELECT spatialite_version()').fetchone()[0])"],
                           capture_output=True, text=True)
    spatialite_version = probe.stdout.strip() if probe.returncode == 0 else None
    if not spatialite_version:
        missing["spatialite"] = "not available: " + (probe.stderr.strip().splitlines() or ["?"])[-1][:90]
    probe = subprocess.run([py, "-c", "import importlib.metadata as m; print(m.version('reverse_geocoder'))"], capture_output=True, text=True)
    rg_version = probe.stdout.strip() if probe.returncode == 0 else None
    if not rg_version:
        missing["rg"] = "not available: " + (probe.stderr.strip().splitlines() or ["?"])[-1][:90]
    sqlite_version = subprocess.run(["sqlite3", "--version"], capture_output=True, text=True).stdout.split(" ")[0] if "sqlite3" not in missing else "—"
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    mem_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    load = os.getloadavg()
    head = git = ""
    try:
        git = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"], capture_output=True, text=True).stdout.strip()
        git += " (with uncommitted changes)" if dirty else ""
    except OSError:
        pass
    head = (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, gazetteer {git}, {args.size:,} generated POIs (seed {args.seed}); "
            f"machine: {os.cpu_count()} cores ({cpu}), {mem_gib:.0f} GiB, {platform.system()} {platform.release()}, "
            f"load average {load[0]:.2f} at start; sqlite3 {sqlite_version}, SpatiaLite {spatialite_version or '—'}, "
            f"reverse_geocoder {rg_version or '—'}")
    print(head)
    for k, why in missing.items():
        print(f"peer {k}: {why}")
    sys.stdout.flush()

    report = Report()
    csv_path = generate_csv(args)
    seed_db = seed_database(args)

    # Import: ours and the bare floor in turn, --import-rounds times, each side's median round
    # reported, each import once the writes before it are flushed (`import_ours`, `import_floor`):
    # the import right after the build paid for its writeback in its commits (8.1 s, where the
    # same import took 5.8-6.2 s alone), and on a machine of few cores one run differs from the
    # next. One untimed round of each first, as the batch comparison does: on this kind of
    # machine the host reclaims memory and cache the guest is not using, and single rounds of
    # ours ranged 6.1-9.0 s in one run (three rounds were too few for a stable median).
    import_rounds = max(1, args.import_rounds)
    warmups = max(0, args.import_warmups)
    ours_imports, floor_imports, floor_failed = [], [], "sqlite3" in missing
    for i in range(warmups + import_rounds):
        timed = i >= warmups
        for side in (("ours", "floor") if i % 2 == 0 else ("floor", "ours")):
            if side == "ours":
                db, r = import_ours(args, csv_path, seed_db)
                if timed:
                    ours_imports.append(r)
            elif not floor_failed:
                r = import_floor(args, csv_path)
                if r is None:
                    floor_failed = True
                elif timed:
                    floor_imports.append(r)
    imp = median_run(ours_imports)
    imp_floor = None if floor_failed else median_run(floor_imports)
    sl_db, imp_sl = import_spatialite(args, csv_path, py) if spatialite_version else (None, None)
    imp_pg = import_postgres(args, csv_path)
    if isinstance(imp_pg, str):
        print(f"peer postgresql: {imp_pg}")
    mib = lambda r: f"{r['peak_rss_kb'] / 1024:,.0f}" if r.get("peak_rss_kb") else "—"
    cpu = lambda r: f"{r['cpu_seconds']:.1f}" if r.get("cpu_seconds") is not None else "—"
    times = lambda r: f"{imp['seconds'] / r['seconds']:.2f}× its time" if r["seconds"] else "—"
    rows = [["gazetteer import (all indexes)", f"{imp['seconds']:.1f}", cpu(imp), f"{imp['rows_per_s']:,.0f}",
             mib(imp), f"{imp['bytes_per_poi']:,.0f}", "", ""]]
    for name, r, key in (("sqlite3 .import, bare table, no index", imp_floor, "sqlite3"),
                         ("SpatiaLite: table + POINT + spatial index", imp_sl, "spatialite"),
                         ("PostgreSQL: COPY + PostGIS point + 2 GiST + 1 GIN", imp_pg, "postgresql")):
        if not isinstance(r, dict):
            rows.append([name, r if isinstance(r, str) else missing.get(key, "failed"), "", "", "", "", "", ""])
        else:
            rows.append([name, f"{r['seconds']:.1f}", cpu(r), f"{r['rows_per_s']:,.0f}", mib(r),
                         f"{r['bytes_per_poi']:,.0f}", f"{times(r)} ({ratio_words(imp['seconds'], r['seconds'])})",
                         ratio_words(imp["bytes_per_poi"], r["bytes_per_poi"], unit="smaller")])
    report.table(f"import {args.size:,} POIs from CSV", ["tool", "seconds", "CPU s", "rows/s", "peak MiB", "bytes/POI", "ours vs it (time)", "ours vs it (size)"],
                 rows, ["bytes/POI: database growth per imported POI (after a WAL checkpoint). Ours holds the R*Tree, "
                        "FTS5 (bigrams and characters of names) and B-tree indexes on id, name and adcode. "
                        "CPU s: user+sys of the process (PostgreSQL: of its server and psql); on a busy machine wall "
                        "time is mostly waiting for a core. Aims (issue 15): ≤ 3× sqlite3's time, below PostgreSQL's. "
                        f"Ours and sqlite3's: each the median of {import_rounds} rounds taken in turn, each first in "
                        f"every other round, after {warmups} untimed round(s) of each "
                        f"(ours: {rounds_text(imp)}; sqlite3's: {rounds_text(imp_floor)}); peak MiB "
                        "the largest of them. SpatiaLite and PostgreSQL: one round each."],
                 data={"gazetteer": imp, "sqlite3": imp_floor, "spatialite": imp_sl, "postgresql": imp_pg})

    inputs = make_inputs(args, db, seed_db)
    sl = lambda op, key, radius=None: spatialite(args, py, sl_db, op, inputs[key], radius) if sl_db and imp_sl else missing.get("spatialite", "import failed")
    fl = lambda op, key, radius=None: floor(db, op, inputs[key], radius, args.peer_seconds) if "sqlite3" not in missing else missing["sqlite3"]

    # Reverse, single
    rg_r = missing.get("rg")
    if rg_version:
        code, out, _, rss = child([py, __file__, "_rg_single", inputs["reverse"], str(args.peer_queries), str(args.peer_seconds)])
        rg_r = json.loads(out.decode().strip().splitlines()[-1]) if code == 0 else "failed"
        if isinstance(rg_r, dict):
            rg_r["peak_rss_kb"] = rss
    report.latency("reverse geocode, single point (random points inside China)", [
        ("gazetteer (province…town, polygon-exact)", ours(db, "reverse", inputs["reverse"], 0)),
        ("sqlite3: region R*Tree box lookup only", fl("reverse", "reverse")),
        ("SpatiaLite: district ST_Contains", sl("reverse", "reverse")),
        ("reverse_geocoder: nearest place", rg_r),
    ], ["gazetteer: Repository.reverseGeocode(radius: 0), an Address with codes, names, citycode and town. "
        "The sqlite3 floor only finds the candidate boxes, without any polygon test."])

    # Reverse, batch: ours as the whole command, reverse_geocoder's query call on a loaded tree
    if rg_version:
        script = os.path.join(args.out, "rg_batch.py")
        open(script, "w").write(RG_BATCH)
    for key, label in (("batch", "random points inside China"),
                       ("batch-box", "uniform in 98–122°E, 22–42°N: land, sea and neighbouring countries")):
        # The writes of the steps before (imports, databases removed) are flushed first, so that
        # neither side pays for their writeback; then the two take turns, each first in every other
        # round, and each side's median round is reported (on a machine of few cores one run
        # differs from the next by some 5 %).
        os.sync()
        rounds = max(1, args.batch_rounds)
        ours_runs, rg_runs, ours_failed, rg_failed = [], [], None, False
        ours_argv = [BIN, "reverse", "--db", db, "--batch", inputs[key], "--radius", "0"]
        rg_argv = lambda timing: [py, script, inputs[key], timing]

        def run_ours(i):
            nonlocal ours_failed
            with open(os.devnull, "wb") as null:
                code, _, wall, rss = child(ours_argv, stdout=null)
            if code == 0:
                ours_runs.append({"seconds": wall, "per_second": args.batch_points / wall, "peak_rss_kb": rss})
            elif ours_failed is None:
                ours_failed = i + 1

        def run_rg():
            nonlocal rg_failed
            if not rg_version or rg_failed:
                return
            timing = os.path.join(args.out, "rg_batch_timing.json")
            if os.path.exists(timing):
                os.remove(timing)
            with open(os.devnull, "wb") as null:
                code, _, wall, rss = child(rg_argv(timing), stdout=null)
            if code == 0 and os.path.exists(timing):
                seconds = json.load(open(timing))["query_seconds"]
                rg_runs.append({"seconds": seconds, "per_second": args.batch_points / seconds, "peak_rss_kb": rss, "whole_seconds": wall})
            else:
                rg_failed = True

        # One untimed round of each first, as every other case here answers its inputs once
        # untimed: the first run after the other cases found the database's batch tables and
        # its own pages colder, and ran up to a fifth slower than the rounds after it.
        for _ in range(max(0, args.batch_warmups)):
            with open(os.devnull, "wb") as null:
                child(ours_argv, stdout=null)
                if rg_version:
                    child(rg_argv(os.path.join(args.out, "rg_batch_warmup.json")), stdout=null)
        for i in range(rounds):
            if i % 2 == 0:
                run_ours(i)
                run_rg()
            else:
                run_rg()
                run_ours(i)

        ours_b = f"failed (round {ours_failed} of {rounds})" if ours_failed else median_run(ours_runs)
        rg_b = missing.get("rg") if not rg_version else ("failed" if rg_failed else median_run(rg_runs))
        rows = []
        for name, r in (("gazetteer reverse --batch --radius 0 (JSON lines), whole command", ours_b),
                        ("reverse_geocoder rg.search(points), multiprocess, query call only", rg_b)):
            if not isinstance(r, dict):
                rows.append([name, r or "failed", "", "", ""])
            else:
                rows.append([name, f"{r['seconds']:.2f}", f"{r['per_second']:,.0f}", f"{r['peak_rss_kb'] / 1024:,.0f}",
                             "" if r is ours_b or not isinstance(ours_b, dict) else
                             f"{ours_b['per_second'] / r['per_second']:.2f}× its throughput ({ratio_words(ours_b['seconds'], r['seconds'])})"])
        report.table(f"reverse geocode, batch of {args.batch_points:,} points, {label}",
                     ["tool", "seconds", "points/s", "peak MiB", "ours vs it"], rows,
                     ["Ours: start, open, answer polygon-exact (province…town), write; reverse_geocoder: its "
                      "query call alone, on a k-d tree already loaded (nearest GeoNames place only). "
                      f"Each the median of {rounds} rounds taken in turn, each side first in every other round, "
                      f"after {max(0, args.batch_warmups)} untimed round(s) of each "
                      f"(ours: {rounds_text(ours_b)}; its: {rounds_text(rg_b)}); peak MiB the largest of them."],
                     data={"gazetteer": ours_b, "rg": rg_b})

    # Nearby
    for area, key, label in (("dense city", "core", "within 3 km of 人民广场, 天安门, 福田"), ("countryside", "country", "random points inside China")):
        for radius in (1000, 5000):
            report.latency(f"nearby {radius // 1000} km, {area} ({label}), 20 nearest", [
                ("gazetteer", ours(db, "nearby", inputs[key], radius)),
                ("sqlite3: POI R*Tree box, ORDER BY distance", fl("nearby", key, radius)),
                ("SpatiaLite: SpatialIndex + ST_Distance(…, 1)", sl("nearby", key, radius)),
            ])

    # Search
    for length in ("1", "2", "3+"):
        for kind in ("common", "rare"):
            key = f"search-{length}-{kind}"
            if key not in inputs:
                continue
            words = list(dict.fromkeys(open(inputs[key], encoding="utf-8").read().split()))
            report.latency(f"search, {length}-character {kind} words, first 20", [
                ("gazetteer (ranked)", ours(db, "search", inputs[key])),
                ("sqlite3: FTS5 MATCH, unranked", fl("search", key)),
                ("SpatiaLite: name LIKE '%word%'", sl("search", key)),
            ], ["words: " + " ".join(words[:20])])

    if "search-located" in inputs:
        report.latency("search, 2-character common words, ranked by distance from a point in a city core", [
            ("gazetteer (class, then distance)", ours(db, "search", inputs["search-located"])),
            ("sqlite3: FTS5 MATCH ⨝ poi, ORDER BY distance", fl("search", "search-located")),
            ("SpatiaLite: LIKE, ORDER BY ST_Distance(…, 1)", sl("search", "search-located")),
        ], ["The location picker's search: the 20 hits nearest the map centre, with distances. The peers sort "
            "every match by distance; gazetteer ranks exact names, then prefixes, then substrings, each nearest "
            "first, the substring class measured over its first 1,000 matches."])

    # Geocode
    report.latency("geocode (hand-written addresses, 省市区 + POI addresses, 市 + POI names)", [
        ("gazetteer", ours(db, "geocode", inputs["geocode"])),
        ("sqlite3", "no equivalent: the shell has no address parser"),
        ("SpatiaLite", "no equivalent: SpatiaLite has no geocoder"),
    ])

    elapsed = time.perf_counter() - began
    print(f"\nwhole run: {elapsed / 60:.1f} min (this script; not counting the release build)")
    md = report.markdown(f"Run: {head}.\n\nWhole run: {elapsed / 60:.1f} min.")
    with open(os.path.join(args.out, f"benchmark-{args.size}.md"), "w", encoding="utf-8") as f:
        f.write(md)
    with open(os.path.join(args.out, f"benchmark-{args.size}.json"), "w", encoding="utf-8") as f:
        json.dump({"run": head, "minutes": elapsed / 60, "cases": report.data}, f, ensure_ascii=False, indent=1)
    print(f"results: {os.path.join(args.out, f'benchmark-{args.size}.md')} and .json")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "_spatialite_import":
        spatialite_import(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) > 1 and sys.argv[1] == "_spatialite_case":
        spatialite_case(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7]))
    elif len(sys.argv) > 1 and sys.argv[1] == "_rg_single":
        rg_single(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    else:
        main()
