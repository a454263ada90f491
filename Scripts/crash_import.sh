#!/usr/bin/env bash
# Crash test of the importer: SIGKILL `gazetteer import` at random moments and check that the
# database is exactly as it was before (an import is one transaction) and still works.
#
#   Scripts/crash_import.sh [KILLS]        # KILLS defaults to 20
#   ROWS=100000 SEED=3 Scripts/crash_import.sh 5
#
# Builds the release CLI when it is missing or older than the sources, imports the bundled seed
# into a base database, generates a large POI CSV with Scripts/generate_pois.py (both cached in
# bench-out/crash/, which git ignores), imports the CSV once into a copy to time it and to record
# the expected "after" state, then KILLS times: copy the base database, start the import, kill
# it with SIGKILL after a random delay spread over the whole import, and check
#   - a reader (`gazetteer info`) opens the killed database and sees the base POI count,
#   - PRAGMA integrity_check, FTS5 'integrity-check' of region_fts and poi_fts, and
#     rtreecheck() of region_rtree and poi_rtree all say ok,
#   - the data fingerprint (counts and a SHA-256 over every table an import writes, FTS and
#     R*Tree shadow tables, the schema and the statistics included) equals the base's, or,
#     when the kill landed after the commit, the completed import's,
#   - a following import of the same CSV succeeds and gives the completed import's fingerprint.
# Ends with a line "N kills survived, M failed" and exits 1 if any failed. Needs python3 and the
# sqlite3 shell (installed with apt-get when missing and run as root).
set -euo pipefail

KILLS="${1:-20}"
ROWS="${ROWS:-300000}"
SEED="${SEED:-3}"
case "$KILLS" in ''|*[!0-9]*) echo "usage: $0 [KILLS]" >&2; exit 2 ;; esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench-out/crash"
CSV="$ROOT/bench-out/pois-$ROWS-s$SEED.csv"
BASE="$OUT/base.sqlite"
WORK="$OUT/work"
LOG="$OUT/crash.log"
mkdir -p "$OUT" "$WORK"
: > "$LOG"

die() { echo "crash_import: $*" >&2; exit 1; }
# shellcheck source=Scripts/lib.sh
. "$ROOT/Scripts/lib.sh"

# --- tools -------------------------------------------------------------------------------------
missing=()
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >>"$LOG" 2>&1 \
        || die "apt-get install ${missing[*]} failed; see $LOG"
fi

# --- build -------------------------------------------------------------------------------------
BIN="$(private_cli)"

# --- inputs ------------------------------------------------------------------------------------
if [ ! -s "$CSV" ]; then
    echo "generating $ROWS POIs…" >&2
    python3 "$ROOT/Scripts/generate_pois.py" --rows "$ROWS" --seed "$SEED" --out "$CSV.tmp" --quiet
    mv "$CSV.tmp" "$CSV"
fi
# The base database: the seed, checkpointed so that it is one self-contained file. Rebuilt when
# the binary is newer (the schema may have changed).
if [ ! -s "$BASE" ] || [ "$BIN" -nt "$BASE" ]; then
    echo "importing the seed into the base database…" >&2
    rmdb "$BASE"
    "$BIN" import --db "$BASE" "$ROOT/seed" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "the seed import failed"; }
    sqlite3 "$BASE" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
    sqlite3 "$BASE" "PRAGMA journal_mode;" | grep -qx wal || die "the base database is not in WAL mode"
fi
rm -f "$BASE-wal" "$BASE-shm"

# --- checks ------------------------------------------------------------------------------------
# Everything an import may change, in a fixed order. MASK=1 leaves out what legitimately differs
# between two complete runs of the same import (the time stamp; statistics, which PRAGMA
# optimize rewrites after the commit, so a kill may land between the two; FTS5's write counter).
fingerprint() {
    local db="$1" mask="${2:-0}" meta="SELECT key, value FROM meta ORDER BY key" stat="SELECT * FROM sqlite_stat1 ORDER BY tbl, idx"
    local block="hex(block)"
    if [ "$mask" = 1 ]; then
        meta="SELECT key, value FROM meta WHERE key <> 'imported_at' ORDER BY key"; stat="SELECT 1"
        # FTS5's structure record (id 10) starts with a 4-byte counter of writes to the index's
        # configuration; the importer sets 'hashsize' and 'automerge' on every POI import, so
        # a re-import that changes no row still bumps it.
        block="CASE WHEN id = 10 THEN hex(substr(block, 5)) ELSE hex(block) END"
    fi
    local counts
    counts="$(sqlite3 "$db" "SELECT (SELECT count(*) FROM region) || ' regions, ' || (SELECT count(*) FROM poi) || ' POIs, '
        || (SELECT count(*) FROM region WHERE boundary IS NOT NULL) || ' boundaries, ' || (SELECT count(*) FROM category) || ' categories'")"
    local sum
    sum="$(sqlite3 -bail "$db" <<SQL | sha256sum | cut -c1-16
SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name;
$meta;
SELECT code, parent, level, name, short_name, pinyin, citycode, lng, lat, center_approx, min_lng, min_lat, max_lng, max_lat, hex(boundary) FROM region ORDER BY code;
SELECT * FROM region_rtree ORDER BY id;
SELECT nodeno, hex(data) FROM region_rtree_node ORDER BY nodeno;
SELECT * FROM region_rtree_rowid ORDER BY rowid;
SELECT * FROM region_rtree_parent ORDER BY nodeno;
SELECT id, $block FROM region_fts_data ORDER BY id;
SELECT * FROM region_fts_idx ORDER BY segid, term;
SELECT * FROM region_fts_config ORDER BY k;
SELECT rowid, id, name, type, typecode, address, phone, lng, lat, adcode, towncode FROM poi ORDER BY rowid;
SELECT * FROM category ORDER BY typecode;
SELECT * FROM poi_rtree ORDER BY id;
SELECT nodeno, hex(data) FROM poi_rtree_node ORDER BY nodeno;
SELECT * FROM poi_rtree_rowid ORDER BY rowid;
SELECT * FROM poi_rtree_parent ORDER BY nodeno;
SELECT id, $block FROM poi_fts_data ORDER BY id;
SELECT * FROM poi_fts_idx ORDER BY segid, term;
SELECT * FROM poi_fts_config ORDER BY k;
$stat;
SQL
)"
    echo "$counts; sha256 $sum"
}

# Prints the problems found (nothing when the database is sound).
health() {
    local db="$1" r
    r="$(sqlite3 "$db" "PRAGMA integrity_check;" 2>&1)"; [ "$r" = ok ] || echo "integrity_check: $r"
    r="$(sqlite3 "$db" "INSERT INTO region_fts (region_fts) VALUES ('integrity-check');" 2>&1)" || echo "region_fts integrity-check: $r"
    r="$(sqlite3 "$db" "INSERT INTO poi_fts (poi_fts) VALUES ('integrity-check');" 2>&1)" || echo "poi_fts integrity-check: $r"
    r="$(sqlite3 "$db" "SELECT rtreecheck('region_rtree');" 2>&1)"; [ "$r" = ok ] || echo "rtreecheck(region_rtree): $r"
    r="$(sqlite3 "$db" "SELECT rtreecheck('poi_rtree');" 2>&1)"; [ "$r" = ok ] || echo "rtreecheck(poi_rtree): $r"
}

poi_count_seen_by_reader() {
    "$BIN" info --db "$1" --json 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["poi_count"])' 2>/dev/null || echo "error"
}

now_ms() { date +%s%3N; }

# --- reference run -----------------------------------------------------------------------------
BASE_FP="$(fingerprint "$BASE")"
BASE_FP_MASKED="$(fingerprint "$BASE" 1)"
BASE_POIS="$(sqlite3 "$BASE" "SELECT count(*) FROM poi")"
problems="$(health "$BASE")"
[ -z "$problems" ] || die "the base database is unhealthy: $problems"
echo "base:  $BASE_FP"

REF="$WORK/reference.sqlite"
rmdb "$REF"; cp "$BASE" "$REF"
t0="$(now_ms)"
"$BIN" import --db "$REF" "$CSV" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "the reference import failed"; }
DURATION_MS=$(( $(now_ms) - t0 ))
AFTER_FP="$(fingerprint "$REF" 1)"
[ "$AFTER_FP" != "$BASE_FP_MASKED" ] || die "the import changed nothing; the test would prove nothing"
problems="$(health "$REF")"
[ -z "$problems" ] || die "the completed import is unhealthy: $problems"
echo "after: $AFTER_FP (import takes $DURATION_MS ms)"
rmdb "$REF"

# --- kills -------------------------------------------------------------------------------------
survived=0; failed=0; before_commit=0; after_commit=0
# Odd kills: a delay anywhere in 0 … 110 % of the import. Even kills: in its last part, 80 … 110 %,
# where the index builds, the commit (the WAL is written only then, the rows fit in the cache)
# and the end of the process lie.
SPAN_MS=$(( DURATION_MS * 110 / 100 ))
LATE_MS=$(( DURATION_MS * 80 / 100 ))
for i in $(seq 1 "$KILLS"); do
    db="$WORK/kill-$i.sqlite"
    rmdb "$db"; cp "$BASE" "$db"
    if [ $((i % 2)) = 1 ]; then
        delay_ms=$(( (RANDOM * 32768 + RANDOM) % (SPAN_MS + 1) ))
    else
        delay_ms=$(( LATE_MS + (RANDOM * 32768 + RANDOM) % (SPAN_MS - LATE_MS + 1) ))
    fi
    "$BIN" import --db "$db" "$CSV" >"$WORK/kill-$i.log" 2>&1 &
    pid=$!
    sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
    kill -KILL "$pid" 2>/dev/null || true
    status=0; wait "$pid" 2>/dev/null || status=$?
    errors=()
    [ -f "$db-wal" ] && wal="$(stat -c %s "$db-wal") B WAL left" || wal="no WAL"
    case "$status" in
        137) how="killed at $delay_ms ms" ;;
        0) how="finished before the kill at $delay_ms ms" ;;
        *) how="exited $status at $delay_ms ms"; errors+=("the import failed on its own: $(tail -n 3 "$WORK/kill-$i.log")") ;;
    esac
    # A reader opens the crashed file first (it must recover or read through the hot WAL).
    seen="$(poi_count_seen_by_reader "$db")"
    problems="$(health "$db")"
    [ -z "$problems" ] || errors+=("$problems")
    fp="$(fingerprint "$db")"
    fpm="$BASE_FP_MASKED"
    [ "$fp" = "$BASE_FP" ] || fpm="$(fingerprint "$db" 1)"
    if [ "$fp" = "$BASE_FP" ]; then
        state="base"; before_commit=$((before_commit + 1))
        [ "$seen" = "$BASE_POIS" ] || errors+=("a reader saw $seen POIs, the base has $BASE_POIS")
    elif [ "$fpm" = "$AFTER_FP" ]; then
        state="complete"; after_commit=$((after_commit + 1))
    else
        state="MIXED"; errors+=("fingerprint $fp is neither the base's nor the completed import's")
    fi
    # The database still takes the same import.
    if "$BIN" import --db "$db" "$CSV" >>"$WORK/kill-$i.log" 2>&1; then
        fp2="$(fingerprint "$db" 1)"
        [ "$fp2" = "$AFTER_FP" ] || errors+=("the following import gave $fp2, expected $AFTER_FP")
        problems="$(health "$db")"
        [ -z "$problems" ] || errors+=("after the following import: $problems")
    else
        errors+=("the following import failed: $(tail -n 3 "$WORK/kill-$i.log")")
    fi
    if [ ${#errors[@]} -eq 0 ]; then
        survived=$((survived + 1))
        printf 'kill %2d: %s (%s): %s, ok\n' "$i" "$how" "$wal" "$state"
        rmdb "$db"; rm -f "$WORK/kill-$i.log"
    else
        failed=$((failed + 1))
        printf 'kill %2d: %s (%s): %s, FAILED\n' "$i" "$how" "$wal" "$state"
        printf '    %s\n' "${errors[@]}"
        echo "    kept $db and $WORK/kill-$i.log"
    fi
done

echo "$survived kills survived, $failed failed ($before_commit left the base data, $after_commit the completed import)"
[ "$failed" -eq 0 ]
