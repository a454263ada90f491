#!/usr/bin/env bash
# Reverse-geocoding benchmark (issue 4): in-process single-query latency on a warm database, and
# batch throughput of the whole `gazetteer reverse --batch` command (start, open, answer, write)
# over N random points inside China with --radius 0, beside the PyPI package reverse_geocoder
# (batch mode; it answers only the nearest GeoNames city) on the same points.
#
#   Scripts/bench_reverse.sh [POINTS]     # POINTS defaults to 1000000
#
# Uses the seed database in bench-out/ (built on first run) and caches the points there.
set -euo pipefail
N="${1:-1000000}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench-out"
mkdir -p "$OUT"
LOG="$OUT/bench-reverse.log"
: > "$LOG"
die() { echo "bench_reverse: $*" >&2; exit 1; }

missing=()
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    { apt-get update -qq && apt-get install -y -qq "${missing[@]}"; } >>"$LOG" 2>&1 || die "cannot install ${missing[*]}"
fi
(cd "$ROOT" && swift build -c release) >>"$LOG" 2>&1 || { tail -n 30 "$LOG" >&2; die "swift build -c release failed"; }
BIN="$ROOT/.build/release/gazetteer"
BENCH="$ROOT/.build/release/gazetteer-bench"
DB="$OUT/reverse-seed.sqlite"
# Rebuild when missing, older than the seed, or of another schema version.
if [ ! -f "$DB" ] || [ "$ROOT/seed/VERSION" -nt "$DB" ] || ! "$BIN" info --db "$DB" >/dev/null 2>&1; then
    rm -f "$DB"*
    "$BIN" import --db "$DB" --dataset-version bench "$ROOT/seed" >>"$LOG" 2>&1 || die "seed import failed; see $LOG"
fi
POINTS="$OUT/points-$N.txt"
[ -s "$POINTS" ] || "$BENCH" points --db "$DB" --count "$N" --seed 7 > "$POINTS"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GiB"
echo
echo "== single queries, in process, warm (gazetteer-bench reverse)"
"$BENCH" reverse --db "$DB" --points "$POINTS" --queries 50000
echo

# seconds and peak RSS (MiB) of a command, via GNU time
measure() {
    local out="$OUT/time.txt"
    /usr/bin/time -f "%e %M" -o "$out" "$@" >/dev/null 2>>"$LOG" || true
    read -r secs kb < "$out"
    echo "$secs $((kb / 1024))"
}

echo "== batch: $N points inside China, whole command, radius 0"
read -r g_secs g_mem < <(measure "$BIN" reverse --db "$DB" --batch "$POINTS" --radius 0)
g_rate=$(python3 -c "print(round($N/$g_secs))")
printf "%-44s %10s s %12s points/s %8s MiB peak\n" "gazetteer reverse --batch (polygon-exact)" "$g_secs" "$g_rate" "$g_mem"

if ! python3 -c "import reverse_geocoder" 2>/dev/null; then
    pip install -q reverse_geocoder >>"$LOG" 2>&1 || true
fi
if python3 -c "import reverse_geocoder" 2>/dev/null; then
    cat > "$OUT/rg_batch.py" <<'PY'
import sys, reverse_geocoder as rg
pts = []
with open(sys.argv[1]) as f:
    for line in f:
        lng, lat = line.split(",")
        pts.append((float(lat), float(lng)))
res = rg.search(pts)  # batch mode (multiprocess), nearest GeoNames city
out = sys.stdout
for r in res:
    out.write(r["admin1"] + "," + r["name"] + "\n")
PY
    read -r r_secs r_mem < <(measure python3 "$OUT/rg_batch.py" "$POINTS")
    r_rate=$(python3 -c "print(round($N/$r_secs))")
    printf "%-44s %10s s %12s points/s %8s MiB peak\n" "reverse_geocoder (PyPI, nearest city only)" "$r_secs" "$r_rate" "$r_mem"
    python3 -c "print(f'ratio: gazetteer is {$r_secs/$g_secs:.2f}x the throughput of reverse_geocoder')"
else
    echo "reverse_geocoder: could not be installed from PyPI (see $LOG); no comparison"
fi
