#!/usr/bin/env bash
# Import benchmark: seed import, a large generated POI import, and the sqlite3 shell's bare
# `.import` of the same CSV as a floor.
#
#   Scripts/bench_import.sh [ROWS]        # ROWS defaults to 1000000
#   SEED=2 Scripts/bench_import.sh 200000 # another random seed for the generator
#
# Builds the release CLI when it is missing or older than the sources, generates the POI CSV
# with Scripts/generate_pois.py (cached in bench-out/, which git ignores), then prints one
# table. Needs /usr/bin/time (Debian package `time`) and the sqlite3 shell; installs them with
# apt-get when run as root.
set -euo pipefail

ROWS="${1:-1000000}"
SEED="${SEED:-1}"
case "$ROWS" in ''|*[!0-9]*) echo "usage: $0 [ROWS]" >&2; exit 2 ;; esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench-out"
BIN="$ROOT/.build/release/gazetteer"
CSV="$OUT/pois-$ROWS-s$SEED.csv"
mkdir -p "$OUT"
LOG="$OUT/bench.log"
: > "$LOG"

die() { echo "bench_import: $*" >&2; exit 1; }

# --- tools -------------------------------------------------------------------------------------
missing=()
[ -x /usr/bin/time ] || missing+=(time)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3)
command -v python3 >/dev/null 2>&1 || missing+=(python3)
if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "missing ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >>"$LOG" 2>&1 \
        || die "apt-get install ${missing[*]} failed; see $LOG"
fi

# --- build -------------------------------------------------------------------------------------
needs_build=0
if [ ! -x "$BIN" ]; then
    needs_build=1
elif [ -n "$(find "$ROOT/Sources" "$ROOT/Package.swift" "$ROOT/schema.sql" -newer "$BIN" -print -quit 2>/dev/null)" ]; then
    needs_build=1
fi
if [ "$needs_build" = 1 ]; then
    (cd "$ROOT" && swift build -c release) >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; die "swift build -c release failed"; }
fi

# --- data --------------------------------------------------------------------------------------
gen_seconds="cached"
if [ ! -s "$CSV" ] || [ "$ROOT/Scripts/generate_pois.py" -nt "$CSV" ] || [ -n "$(find "$ROOT/seed" -newer "$CSV" -print -quit)" ]; then
    t0=$(date +%s.%N)
    python3 "$ROOT/Scripts/generate_pois.py" --rows "$ROWS" --seed "$SEED" --out "$CSV" --quiet 2>>"$LOG" \
        || die "generate_pois.py failed; see $LOG"
    gen_seconds=$(echo "$(date +%s.%N) $t0" | awk '{printf "%.1f s", $1 - $2}')
fi

# --- measuring ---------------------------------------------------------------------------------
# run NAME CMD...: runs CMD quietly under /usr/bin/time; sets SECS (wall clock) and RSS_KB (peak).
run() {
    local name="$1"; shift
    local tf="$OUT/.time.$name"
    local t0 t1
    t0=$(date +%s.%N)
    if ! /usr/bin/time -f "%M" -o "$tf" "$@" >>"$LOG" 2>&1; then
        tail -n 20 "$LOG" >&2
        die "$name failed: $*"
    fi
    t1=$(date +%s.%N)
    SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.2f", b - a}')
    RSS_KB=$(tail -n 1 "$tf")
    rm -f "$tf"
}
db_bytes() { local s=0 f; for f in "$1" "$1-wal"; do [ -f "$f" ] && s=$((s + $(stat -c %s "$f"))); done; echo "$s"; }
rm_db() { rm -f "$1" "$1-wal" "$1-shm" "$1-journal"; }
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN {if (s > 0) printf "%.0f", n / s; else print "-"}'; }

SEED_DB="$OUT/seed.db"
POI_DB="$OUT/pois.db"
BARE_DB="$OUT/bare.db"

# a. the seed folder into a fresh database
rm_db "$SEED_DB"
run seed "$BIN" import --db "$SEED_DB" "$ROOT/seed"
seed_rows=$(sqlite3 "$SEED_DB" "SELECT (SELECT count(*) FROM region) + (SELECT count(*) FROM region WHERE boundary IS NOT NULL) + (SELECT count(*) FROM poi)")
a_secs=$SECS a_rss=$RSS_KB a_size=$(db_bytes "$SEED_DB")

# b. the generated POIs into a copy of the seed database
rm_db "$POI_DB"
cp "$SEED_DB" "$POI_DB"
run pois "$BIN" import --db "$POI_DB" "$CSV"
got=$(sqlite3 "$POI_DB" "SELECT count(*) FROM poi WHERE id LIKE 'gen:%'")
[ "$got" = "$ROWS" ] || die "expected $ROWS generated POIs in $POI_DB, found $got"
b_secs=$SECS b_rss=$RSS_KB b_size=$(db_bytes "$POI_DB")

# c. the same CSV with the sqlite3 shell into a plain table (no indexes)
rm_db "$BARE_DB"
sqlite3 "$BARE_DB" "CREATE TABLE poi (id TEXT, name TEXT, type TEXT, typecode TEXT, address TEXT, phone TEXT,
                                      lng REAL, lat REAL, adcode INTEGER, towncode INTEGER)"
run bare sqlite3 "$BARE_DB" ".import --csv --skip 1 '$CSV' poi"
got=$(sqlite3 "$BARE_DB" "SELECT count(*) FROM poi")
[ "$got" = "$ROWS" ] || die "expected $ROWS rows in $BARE_DB, found $got"
c_secs=$SECS c_rss=$RSS_KB c_size=$(db_bytes "$BARE_DB")

ratio=$(awk -v b="$b_secs" -v c="$c_secs" 'BEGIN {if (c > 0) printf "%.1fx", b / c; else print "-"}')

# --- report ------------------------------------------------------------------------------------
csv_size=$(stat -c %s "$CSV")
printf 'POI CSV: %s (%s rows, %s; generated: %s)\n' "${CSV#"$ROOT"/}" "$ROWS" "$(mib "$csv_size")" "$gen_seconds"
printf 'gazetteer: %s, sqlite3 %s\n\n' "${BIN#"$ROOT"/}" "$(sqlite3 --version | cut -d' ' -f1)"
fmt='%-34s %10s %12s %10s %13s %12s\n'
printf "$fmt" "step" "rows" "seconds" "rows/s" "DB size" "peak RSS"
printf "$fmt" "a. seed folder -> fresh DB" "$seed_rows" "$a_secs" "$(rate "$seed_rows" "$a_secs")" "$(mib "$a_size")" "$(mib $((a_rss * 1024)))"
printf "$fmt" "b. POIs -> copy of seed DB" "$ROWS" "$b_secs" "$(rate "$ROWS" "$b_secs")" "$(mib "$b_size")" "$(mib $((b_rss * 1024)))"
printf "$fmt" "c. sqlite3 .import, bare table" "$ROWS" "$c_secs" "$(rate "$ROWS" "$c_secs")" "$(mib "$c_size")" "$(mib $((c_rss * 1024)))"
printf "$fmt" "d. ratio b / c" "" "$ratio" "" "" ""
