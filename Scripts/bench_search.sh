#!/usr/bin/env bash
# Nearby and keyword-search benchmark (issue 5): in-process latency of Repository.nearby,
# Repository.search and Repository.geocode on a warm database (gazetteer-bench), beside the
# bare R*Tree box query and the bare FTS5 MATCH query a user would write, run through the
# sqlite3 shell on the same data with the same points and words.
#
#   Scripts/bench_search.sh              # the seed database and a 1,000,000-generated-POI one
#   Scripts/bench_search.sh DB [DB...]   # these databases only
#   QUERIES=500 Scripts/bench_search.sh  # queries per nearby case (search: a third, geocode: a quarter)
#
# Databases: bench-out/search-seed.db (imported from seed/ when missing or of another schema version)
# and bench-out/search-1m.db (a copy of the seed database plus the 1M POIs of
# Scripts/generate_pois.py --rows 1000000 --seed 1, the CSV cached by Scripts/bench_import.sh;
# rebuilt when missing or of another schema version; takes about a minute).
#
# Words: per database, from its own FTS vocabulary (fts5vocab over poi_fts) and names:
# the 20 most frequent single characters and Han bigrams, 20 rare ones (in 1 to 5 POIs),
# the 10 most frequent 3- and 4-character runs in a 1-in-N sample of POI names, 20 whole POI
# names (3 to 8 Han characters), 20 district and town names; and the typical words
# 店 银行 学校 望京 朝阳 北京大学 瑞幸咖啡, each measured alone.
#
# Bare queries: each case's statements (written by gazetteer-bench --emit-sql) run in one
# sqlite3 shell with `PRAGMA mmap_size` as the library sets it:
#   - p50/p99: per statement, `.timer on`'s user+sys CPU time (µs resolution; the `real`
#     column only has ms), minus the median of the same for `SELECT 1 WHERE 0`;
#   - mean: wall time of the whole script divided by N, minus the same for N empty queries
#     (median of 3 runs each).
# Ratios are ours / bare (above 1: the library is slower than the bare query).
set -euo pipefail
QUERIES="${QUERIES:-2000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench-out"
mkdir -p "$OUT"
LOG="$OUT/bench-search.log"
: > "$LOG"
die() { echo "bench_search: $*" >&2; exit 1; }

missing=()
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >>"$LOG" 2>&1 || die "cannot install ${missing[*]}"
fi
(cd "$ROOT" && swift build -c release) >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; die "swift build -c release failed"; }
BIN="$ROOT/.build/release/gazetteer"
BENCH="$ROOT/.build/release/gazetteer-bench"
SCHEMA=$(sed -n 's/^PRAGMA user_version *= *\([0-9]*\).*/\1/p' "$ROOT/schema.sql")

# schema_ok DB: the file exists and has the schema version this build reads.
schema_ok() { [ -s "$1" ] && [ "$(sqlite3 "$1" 'PRAGMA user_version' 2>/dev/null)" = "$SCHEMA" ]; }

build_seed() {
    local db="$OUT/search-seed.db"
    schema_ok "$db" && return
    rm -f "$db" "$db-wal" "$db-shm"
    "$BIN" import --db "$db" "$ROOT/seed" >>"$LOG" 2>&1 || die "seed import failed; see $LOG"
}

build_1m() {
    local db="$OUT/search-1m.db" csv="$OUT/pois-1000000-s1.csv"
    if schema_ok "$db" && [ "$(sqlite3 "$db" "SELECT count(*) FROM poi WHERE id LIKE 'gen:%'")" = 1000000 ]; then return; fi
    build_seed
    if [ ! -s "$csv" ]; then
        python3 "$ROOT/Scripts/generate_pois.py" --rows 1000000 --seed 1 --out "$csv" --quiet 2>>"$LOG" || die "generate_pois.py failed; see $LOG"
    fi
    rm -f "$db" "$db-wal" "$db-shm"
    cp "$OUT/search-seed.db" "$db"
    echo "bench_search: importing 1,000,000 POIs into $db (about a minute)" >&2
    "$BIN" import --db "$db" "$csv" >>"$LOG" 2>&1 || die "POI import failed; see $LOG"
}

if [ $# -eq 0 ]; then
    build_seed
    build_1m
    set -- "$OUT/search-seed.db" "$OUT/search-1m.db"
fi

# words DB FILE: CLASS<TAB>WORD lines from the database's own vocabulary and names.
words() {
    local db="$1" file="$2" han="unicode(%s) BETWEEN 13312 AND 40959"
    local h1 h2
    h1=$(printf "$han" "term") h2=$(printf "$han" "substr(term, 2)")
    sqlite3 -separator $'\t' "$db" >"$file" <<SQL
CREATE VIRTUAL TABLE temp.v USING fts5vocab(main, poi_fts, 'col');
SELECT '1-char common', term FROM (SELECT term FROM temp.v WHERE col = 'chars' AND $h1 ORDER BY doc DESC, term LIMIT 20);
SELECT '1-char rare', term FROM (SELECT term FROM temp.v WHERE col = 'chars' AND $h1 AND doc BETWEEN 1 AND 5
                                  ORDER BY unicode(term) % 97, term LIMIT 20);
SELECT '2-char common', term FROM (SELECT term FROM temp.v WHERE col = 'grams' AND length(term) = 2 AND $h1 AND $h2
                                    ORDER BY doc DESC, term LIMIT 20);
SELECT '2-char rare', term FROM (SELECT term FROM temp.v WHERE col = 'grams' AND length(term) = 2 AND $h1 AND $h2
                                  AND doc BETWEEN 1 AND 5 ORDER BY (unicode(term) * 31 + unicode(substr(term, 2))) % 97, term LIMIT 20);
SQL
}

# words_long DB FILE: appends 3+-character words: frequent runs in sampled names, whole names.
words_long() {
    local db="$1" file="$2" n step
    n=$(sqlite3 "$db" "SELECT max(rowid) FROM poi")
    step=$(( n / 20000 )); [ "$step" -ge 1 ] || step=1
    sqlite3 "$db" "SELECT name FROM poi WHERE rowid % $step = 0" | python3 -c '
import sys, re, collections
han = re.compile(r"[\u3400-\u9fff]+")
names = sys.stdin.read().split("\n")
for k in (3, 4):
    c = collections.Counter()
    for name in names:
        for run in han.findall(name):
            for i in range(len(run) - k + 1):
                c[run[i:i + k]] += 1
    for w, _ in sorted(c.items(), key=lambda x: (-x[1], x[0]))[:10]:
        print(f"{k}-char common\t{w}")
' >>"$file"
    sqlite3 -separator $'\t' "$db" >>"$file" <<SQL
SELECT 'whole POI name', name FROM (SELECT name FROM poi WHERE length(name) BETWEEN 3 AND 8
    AND name NOT GLOB '*[^一-龥]*' AND rowid % $(( n / 60 + 1 )) = 1 ORDER BY rowid LIMIT 20);
SELECT 'region name', name FROM (SELECT name FROM region WHERE level IN (2, 3) AND code % 89 = 0
    AND name NOT GLOB '*[^一-龥]*' ORDER BY code LIMIT 20);
SQL
}

# bare_stats SQLFILE DB: prints "p50 p99 mean" (µs) of the bare statements, baseline subtracted.
# The first 20 statements run untimed first in the same shell, so every timed one finds the
# tables open and the pages mapped (as the library's warm-up pass does).
bare_stats() {
    local sql="$1" db="$2" n
    n=$(wc -l < "$sql")
    local base="$WORK/baseline-$n.sql"
    [ -s "$base" ] || awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) print "SELECT 1 WHERE 0;" }' > "$base"
    local pre="PRAGMA mmap_size = 1073741824;"
    # warm the page cache
    { echo "$pre"; cat "$sql"; } | sqlite3 -readonly "$db" >/dev/null
    # per statement CPU time
    { echo "$pre"; head -n 20 "$sql"; echo ".timer on"; cat "$sql"; } | sqlite3 -readonly "$db" | grep '^Run Time' > "$WORK/t.q"
    { echo "$pre"; head -n 20 "$sql"; echo ".timer on"; cat "$base"; } | sqlite3 -readonly "$db" | grep '^Run Time' > "$WORK/t.b"
    # whole-script wall time, median of 3
    local walls=() wallb=() i t0
    for i in 1 2 3; do
        t0=$(date +%s%N); { echo "$pre"; head -n 20 "$sql"; cat "$sql"; } | sqlite3 -readonly "$db" >/dev/null; walls+=($(( $(date +%s%N) - t0 )))
        t0=$(date +%s%N); { echo "$pre"; head -n 20 "$sql"; cat "$base"; } | sqlite3 -readonly "$db" >/dev/null; wallb+=($(( $(date +%s%N) - t0 )))
    done
    python3 - "$WORK/t.q" "$WORK/t.b" "$n" "${walls[*]}" "${wallb[*]}" <<'PY'
import sys, statistics
def cpu(path):
    out = []
    for line in open(path):
        f = line.split()  # Run Time: real R user U sys S
        out.append((float(f[5]) + float(f[7])) * 1e6)
    return out
q, b = cpu(sys.argv[1]), cpu(sys.argv[2])
base = statistics.median(b) if b else 0.0
q = sorted(max(0.0, x - base) for x in q)
n = int(sys.argv[3])
ws = statistics.median(int(x) for x in sys.argv[4].split())
wb = statistics.median(int(x) for x in sys.argv[5].split())
mean = max(0.0, (ws - wb) / 1e3 / n)
print(f"{q[len(q) // 2]:.1f} {q[min(len(q) - 1, len(q) * 99 // 100)]:.1f} {mean:.1f}")
PY
}

# report TSV WORK: the table of ours beside bare, with ratios.
report() {
    python3 - "$1" "$2" <<'PY'
import sys, os, unicodedata
tsv, work = sys.argv[1], sys.argv[2]
def width(s): return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
def pad(s, n): return s + " " * max(1, n - width(s))
def num(x): return f"{x:.1f}" if x is not None else "-"
def ratio(a, b): return f"{a / b:.2f}" if b else "-"
cols = ["ours p50", "p99", "mean", "bare p50", "p99", "mean", "p50 x", "p99 x", "mean x"]
print(pad("case", 30) + "".join(c.rjust(10) for c in cols))
for line in open(tsv):
    key, bare, count, p50, p99, mean, results, label = line.rstrip("\n").split("\t")
    p50, p99, mean = float(p50), float(p99), float(mean)
    row = pad(key, 30) + "".join(num(x).rjust(10) for x in (p50, p99, mean))
    path = os.path.join(work, "bare-" + bare)
    if bare != "-" and os.path.exists(path):
        b50, b99, bmean = map(float, open(path).read().split())
        row += "".join(num(x).rjust(10) for x in (b50, b99, bmean))
        row += "".join(ratio(a, b).rjust(10) for a, b in ((p50, b50), (p99, b99), (mean, bmean)))
    print(row)
PY
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB; sqlite3 $(sqlite3 --version | cut -d' ' -f1)"
echo "build: $(cd "$ROOT" && git rev-parse --short HEAD)$( (cd "$ROOT" && git diff --quiet HEAD -- Sources) || echo ' + uncommitted changes'), $(date -u '+%Y-%m-%d %H:%M UTC')"

for DB in "$@"; do
    [ -s "$DB" ] || die "no database at $DB"
    schema_ok "$DB" || die "$DB is not of schema version $SCHEMA (re-import it)"
    WORK="$OUT/search-$(basename "$DB" .db)"
    rm -rf "$WORK"; mkdir -p "$WORK/sql"
    TSV="$WORK/results.tsv"
    WORDS="$WORK/words.tsv"
    words "$DB" "$WORDS"
    words_long "$DB" "$WORDS"

    echo
    echo "== $DB ($(sqlite3 "$DB" 'SELECT count(*) FROM poi') POIs)"
    echo "-- in process, warm (gazetteer-bench)"
    "$BENCH" nearby --db "$DB" --queries "$QUERIES" --emit-sql "$WORK/sql" --tsv "$TSV"
    echo
    "$BENCH" search --db "$DB" --queries "$(( QUERIES / 3 ))" --words "$WORDS" --emit-sql "$WORK/sql" --tsv "$TSV"
    echo
    "$BENCH" geocode --db "$DB" --queries "$(( QUERIES / 4 ))" --tsv "$TSV"
    echo
    echo "-- beside the bare query in the sqlite3 shell (µs; bare p50/p99 = CPU time per statement, bare mean = wall)"
    while IFS=$'\t' read -r key bare _; do
        [ "$bare" = "-" ] || [ -s "$WORK/bare-$bare" ] || bare_stats "$WORK/sql/$bare.sql" "$DB" > "$WORK/bare-$bare"
    done < "$TSV"
    report "$TSV" "$WORK"
done
