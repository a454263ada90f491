#!/usr/bin/env bash
# Load test of `gazetteer serve` with wrk, beside nginx serving one static AMap answer (the
# ceiling of HTTP on this machine: no query, no JSON to make) in the same run.
#
#   Scripts/serve_benchmark.sh [--db PATH] [--connections 64] [--seconds 20] [--million] [--out DIR]
#
# For each of regeo, place/around, place/text and geocode/geo: wrk with CONNECTIONS connections
# for SECONDS, replaying requests made from the database's own places (Scripts/serve/make_requests.py),
# then requests/s, p50 and p99 latency, non-2xx count and the server's resident memory. With
# --million, a last run replays all four interleaved until 1,000,000 requests have been answered,
# sampling the server's memory along the way (it must stay flat). Without --db, the seed database
# (the default database, built on first use). Installs wrk and nginx-light with apt-get if missing.
# Prints a Markdown table (also written to OUT/serve-benchmark.md).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DB=""
CONNECTIONS=64
DURATION=20
MILLION=0
OUT="$ROOT/bench-out/serve"
while [ $# -gt 0 ]; do
    case "$1" in
        --db) DB="$2"; shift 2 ;;
        --connections) CONNECTIONS="$2"; shift 2 ;;
        --seconds) DURATION="$2"; shift 2 ;;
        --million) MILLION=1; shift ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1 (see --help)" >&2; exit 64 ;;
    esac
done
mkdir -p "$OUT"
PORT=18741
NGINX_PORT=18742

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}…" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"

echo "building the release CLI…" >&2
(cd "$ROOT" && swift build -c release --static-swift-stdlib --product gazetteer >/dev/null)
BIN="$OUT/gazetteer"
cp -p "$(cd "$ROOT" && swift build -c release --static-swift-stdlib --product gazetteer --show-bin-path)/gazetteer" "$BIN"
if [ -z "$DB" ]; then
    "$BIN" info >/dev/null   # builds the default database from the seed on first use
    DB="$("$BIN" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["path"])')"
fi
python3 "$ROOT/Scripts/serve/make_requests.py" "$DB" "$OUT/requests" --count 20000 >&2

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

"$BIN" serve --db "$DB" --port "$PORT" 2>"$OUT/serve.log" >/dev/null &
SERVE=$!
pids+=("$SERVE")
for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 0.2; done

# nginx: for each endpoint, a static file the size of that endpoint's mean answer (from the first
# 200 replayed requests), served with AMap's content type.
mkdir -p "$OUT/nginx"
for kind in regeo around text geo; do
    total=0
    while read -r p; do
        total=$((total + $(curl -sf "http://127.0.0.1:$PORT$p" | wc -c)))
    done < <(head -n 200 "$OUT/requests/$kind.txt")
    mean=$((total / 200))
    python3 -c "import sys; n = int(sys.argv[1]); sys.stdout.write('{\"status\":\"1\",\"pad\":\"' + 'x' * max(0, n - 22) + '\"}')" "$mean" > "$OUT/nginx/$kind.json"
    echo "/$kind.json" > "$OUT/nginx/$kind-paths.txt"
done
cat > "$OUT/nginx/nginx.conf" <<CONF
worker_processes auto;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log;
events { worker_connections 1024; }
http {
    access_log $OUT/nginx/access.log;
    types { }
    default_type "application/json;charset=UTF-8";
    server {
        listen 127.0.0.1:$NGINX_PORT;
        root $OUT/nginx;
    }
}
CONF
"$NGINX" -c "$OUT/nginx/nginx.conf" -g 'daemon off;' &
pids+=($!)
sleep 0.5

# Every replayed request must get an AMap answer with status "1": check a sample first.
for kind in regeo around text geo; do
    bad=0
    while read -r p; do
        curl -sf "http://127.0.0.1:$PORT$p" | grep -q '^{"status":"1"' || bad=$((bad + 1))
    done < <(head -n 50 "$OUT/requests/$kind.txt")
    [ "$bad" -eq 0 ] || { echo "$bad of 50 $kind requests did not answer status 1" >&2; exit 1; }
done

rss() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$SERVE/status"; }
hwm() { awk '/^VmHWM/ {printf "%.0f", $2 / 1024}' "/proc/$SERVE/status"; }

# run NAME URL PATHS SECONDS: wrk; sets RPS, P50, P99, REQUESTS, ERRORS.
run() {
    local name="$1" url="$2" paths="$3" seconds="$4" out
    out="$(PATHS="$paths" wrk -t2 -c"$CONNECTIONS" -d"${seconds}s" --latency -s "$ROOT/Scripts/serve/paths.lua" "$url")"
    echo "$out" > "$OUT/wrk-$name.txt"
    RPS="$(echo "$out" | awk '/^Requests\/sec/ {printf "%.0f", $2}')"
    P50="$(echo "$out" | awk '$1 == "50%" {print $2}')"
    P99="$(echo "$out" | awk '$1 == "99%" {print $2}')"
    REQUESTS="$(echo "$out" | awk '/requests in/ {print $1}')"
    ERRORS="$(echo "$out" | awk '/Non-2xx/ {n += $NF} /Socket errors/ {gsub(",", ""); n += $4 + $6 + $8 + $10} END {print n + 0}')"
}

{
    echo "## gazetteer serve under wrk ($CONNECTIONS connections, 2 threads, ${DURATION} s each; $(nproc) cores shared by wrk and the server)"
    echo
    echo "Database: $(basename "$DB"), $(python3 -c "import sqlite3,sys; print(sqlite3.connect('file:'+sys.argv[1]+'?mode=ro', uri=True).execute('SELECT count(*) FROM poi').fetchone()[0])" "$DB") POIs. nginx serves a static file of the endpoint's mean answer size (the HTTP ceiling here)."
    echo
    echo "| endpoint | serve requests/s | p50 | p99 | errors | nginx requests/s | nginx p50 | nginx p99 | serve / nginx | serve RSS after (MiB) |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} | tee "$OUT/serve-benchmark.md"
# The HTTP floor of each server: a path both answer 404, no query, no file.
echo "/nowhere" > "$OUT/floor-paths.txt"
run "serve 404" "http://127.0.0.1:$PORT" "$OUT/floor-paths.txt" "$DURATION"
serve_rps=$RPS; serve_p50=$P50; serve_p99=$P99
run "nginx 404" "http://127.0.0.1:$NGINX_PORT" "$OUT/floor-paths.txt" "$DURATION"
echo "| no work (a 404: each server's HTTP floor) | $serve_rps | $serve_p50 | $serve_p99 | – | $RPS | $P50 | $P99 | $(python3 -c "print(f'{$serve_rps / max($RPS, 1):.2f}')") | $(rss) |" | tee -a "$OUT/serve-benchmark.md"
for kind in regeo around text geo; do
    run "nginx $kind" "http://127.0.0.1:$NGINX_PORT" "$OUT/nginx/$kind-paths.txt" "$DURATION"
    nginx_rps=$RPS; nginx_p50=$P50; nginx_p99=$P99
    run "serve $kind" "http://127.0.0.1:$PORT" "$OUT/requests/$kind.txt" "$DURATION"
    echo "| $kind ($(stat -c %s "$OUT/nginx/$kind.json") B) | $RPS | $P50 | $P99 | $ERRORS | $nginx_rps | $nginx_p50 | $nginx_p99 | $(python3 -c "print(f'{$RPS / max($nginx_rps, 1):.2f}')") | $(rss) |" | tee -a "$OUT/serve-benchmark.md"
done

if [ "$MILLION" -eq 1 ]; then
    run "serve mix (probe)" "http://127.0.0.1:$PORT" "$OUT/requests/mix.txt" 10
    seconds=$(( 1000000 / (RPS > 0 ? RPS : 1) + 5 ))
    echo >&2 "memory run: about $seconds s for 1,000,000 requests…"
    samples="$OUT/rss-samples.txt"
    : > "$samples"
    ( while kill -0 "$SERVE" 2>/dev/null; do echo "$(rss)" >> "$samples"; sleep 5; done ) &
    pids+=($!)
    run "serve mix, 1M requests" "http://127.0.0.1:$PORT" "$OUT/requests/mix.txt" "$seconds"
    kill "${pids[-1]}" 2>/dev/null || true
    {
        echo
        echo "All four interleaved, $REQUESTS requests in $seconds s ($RPS/s, p50 $P50, p99 $P99, $ERRORS errors)."
        echo "Server memory over that run, MiB resident (sampled every 5 s; at 0, 25, 50, 75 and 100 %): $(python3 -c "import sys; v = [l.strip() for l in open(sys.argv[1]) if l.strip()]; print(' → '.join(v[min(len(v) - 1, len(v) * q // 4)] for q in range(5)))" "$samples") (peak $(hwm) MiB)."
    } | tee -a "$OUT/serve-benchmark.md"
fi
echo | tee -a "$OUT/serve-benchmark.md" >/dev/null
echo "(written to $OUT/serve-benchmark.md)" >&2
