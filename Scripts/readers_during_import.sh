#!/usr/bin/env bash
# Readers during a write: while one `gazetteer import` changes the answers for a few fixed
# points, reader processes ask `reverse --batch -` and `nearby` about those points in a loop.
# Every answer a reader gets must be the answer from before the import or the one from after it:
# never a mix of the two, never an error, never "database is locked".
#
#   Scripts/readers_during_import.sh [READERS] [ROWS]    # defaults: 3 readers, 150000 POIs
#
# With ROWS 700000 or more (a POI file larger than the seed's database) the import is written
# into a copy renamed over the database at the end (README, "import"): the readers must then
# see the same, the rename included.
#
# The import renames a district (西湖区 → 西湖新区, a regions file merged into the seed) and adds
# ROWS POIs within 400 m of the fixed points, in one transaction; so a reader that saw the new
# name without the new POIs (or the reverse) would be caught. Builds the release CLI when it is
# missing or stale; works in bench-out/readers/ (git ignores bench-out/). Needs python3 and the
# sqlite3 shell. Exits 1 on any bad answer.
set -euo pipefail

READERS="${1:-3}"
ROWS="${2:-150000}"
case "$READERS$ROWS" in ''|*[!0-9]*) echo "usage: $0 [READERS] [ROWS]" >&2; exit 2 ;; esac

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/bench-out/readers"
DB="$OUT/readers.sqlite"
LOG="$OUT/readers.log"
mkdir -p "$OUT"
: > "$LOG"
die() { echo "readers_during_import: $*" >&2; exit 1; }
# shellcheck source=Scripts/lib.sh
. "$ROOT/Scripts/lib.sh"
command -v sqlite3 >/dev/null 2>&1 || die "needs the sqlite3 shell (apt-get install sqlite3)"
command -v python3 >/dev/null 2>&1 || die "needs python3"

BIN="$(private_cli)"

BASE="$OUT/base.sqlite"
if [ ! -s "$BASE" ] || [ "$BIN" -nt "$BASE" ]; then
    echo "importing the seed…" >&2
    rmdb "$BASE"
    "$BIN" import --db "$BASE" "$ROOT/seed" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "the seed import failed"; }
    sqlite3 "$BASE" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
fi
rm -f "$BASE-wal" "$BASE-shm"

# The fixed points: in 西湖区 (renamed by the import), elsewhere in 杭州, and in 北京.
POINTS="$OUT/points.txt"
cat > "$POINTS" <<'EOF'
120.101,30.241
120.130194,30.259463
120.1551,30.2741
116.397477,39.908692
EOF

REGIONS="$OUT/rename.csv"
printf 'code,parent,level,name,short_name\n330106,330100,district,西湖新区,西湖新\n' > "$REGIONS"
POIS="$OUT/pois-near-$ROWS.csv"
if [ ! -s "$POIS" ]; then
    python3 - "$POINTS" "$ROWS" "$POIS" <<'EOF'
import math, random, sys
points = [tuple(map(float, l.split(","))) for l in open(sys.argv[1]) if l.strip()]
rows, out = int(sys.argv[2]), sys.argv[3]
rng = random.Random(7)
with open(out + ".tmp", "w", encoding="utf-8") as f:
    f.write("id,name,type,typecode,address,phone,lng,lat,adcode,towncode\n")
    for i in range(rows):
        lng, lat = points[i % len(points)]
        r, a = 400 * math.sqrt(rng.random()), rng.random() * 2 * math.pi
        dlat = r * math.cos(a) / 111_320
        dlng = r * math.sin(a) / (111_320 * math.cos(math.radians(lat)))
        f.write(f"near:{i:07d},测试点{i}号,餐饮服务;中餐厅;中餐厅,050100,测试路{i}号,,{lng + dlng:.6f},{lat + dlat:.6f},,\n")
import os; os.replace(out + ".tmp", out)
EOF
fi

# One round of answers: a line per point from `reverse --batch -`, then a line per point from
# `nearby`, each prefixed with what it answers. Errors are answers too (and never match).
answers() {
    local db="$1" p
    "$BIN" reverse --db "$db" --batch - --radius 500 --limit 5 < "$POINTS" 2>&1 | sed 's/^/reverse\t/' || true
    while read -r p; do
        printf 'nearby %s\t' "$p"
        "$BIN" nearby --db "$db" --location "$p" --radius 500 --limit 5 --json 2>&1 | tr '\n' ' ' || true
        echo
    done < "$POINTS"
}

# Numbered answers: line k of a round always answers question k.
numbered() { awk -v OFS='\t' '{ print NR, $0 }'; }

rmdb "$DB"; cp "$BASE" "$DB"
answers "$DB" | numbered > "$OUT/before.txt"
AFTER_DB="$OUT/after.sqlite"
rmdb "$AFTER_DB"; cp "$BASE" "$AFTER_DB"
t0=$(date +%s%3N)
"$BIN" import --db "$AFTER_DB" "$REGIONS" "$POIS" >>"$LOG" 2>&1 || { tail -n 20 "$LOG" >&2; die "the import failed"; }
echo "the import takes $(( $(date +%s%3N) - t0 )) ms" >&2
answers "$AFTER_DB" | numbered > "$OUT/after.txt"
rmdb "$AFTER_DB"
questions=$(wc -l < "$OUT/before.txt")
differ=$(python3 -c 'import sys; a, b = (open(f, encoding="utf-8").read().splitlines() for f in sys.argv[1:]); print(sum(x != y for x, y in zip(a, b)) if len(a) == len(b) else 0)' "$OUT/before.txt" "$OUT/after.txt")
[ "$differ" -eq "$questions" ] || die "only $differ of $questions answers change with the import; the test would prove little"
grep -q '"status":"0"\|rror' "$OUT/before.txt" "$OUT/after.txt" && die "the reference answers hold errors: see $OUT/before.txt, $OUT/after.txt"

# The readers loop until the import is over, then answer once more.
rm -f "$OUT"/reader-*.txt "$OUT/done"
reader_pids=()
for r in $(seq 1 "$READERS"); do
    ( while [ ! -e "$OUT/done" ]; do answers "$DB" | numbered; done; answers "$DB" | numbered ) > "$OUT/reader-$r.txt" &
    reader_pids+=($!)
done
sleep 0.5
t0=$(date +%s%3N)
import_status=0
"$BIN" import --db "$DB" "$REGIONS" "$POIS" >>"$LOG" 2>&1 || import_status=$?
elapsed=$(( $(date +%s%3N) - t0 ))
sleep 0.5
touch "$OUT/done"
for pid in "${reader_pids[@]}"; do wait "$pid"; done
[ "$import_status" = 0 ] || die "the import under readers failed (exit $import_status): $(tail -n 5 "$LOG")"

# Judge every recorded answer.
status=0
python3 - "$OUT" "$READERS" <<'EOF' || status=$?
import sys
out, readers = sys.argv[1], int(sys.argv[2])
def load(path):
    d = {}
    for line in open(path, encoding="utf-8", errors="replace"):
        n, _, answer = line.rstrip("\n").partition("\t")
        d[int(n)] = answer
    return d
before, after = load(f"{out}/before.txt"), load(f"{out}/after.txt")
total = bad = saw_before = saw_after = 0
examples = []
for r in range(1, readers + 1):
    rounds = 0
    for line in open(f"{out}/reader-{r}.txt", encoding="utf-8", errors="replace"):
        n, _, answer = line.rstrip("\n").partition("\t")
        n = int(n)
        total += 1
        if n == 1: rounds += 1
        if answer == before.get(n): saw_before += 1
        elif answer == after.get(n): saw_after += 1
        else:
            bad += 1
            if len(examples) < 5: examples.append(f"reader {r}, question {n}: {answer[:300]}")
    print(f"reader {r}: {rounds} rounds")
print(f"{total} answers: {saw_before} before the import, {saw_after} after it, {bad} neither")
for e in examples: print("  " + e)
if saw_before == 0 or saw_after == 0:
    print("warning: the readers did not overlap the import on both sides; make ROWS larger")
sys.exit(1 if bad else 0)
EOF
echo "import under $READERS readers: $elapsed ms"
exit $status
