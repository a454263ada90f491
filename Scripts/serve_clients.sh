#!/usr/bin/env bash
# Real AMap client code, written by others, against `gazetteer serve` on the seed: each client is
# pointed at the service only through its own base-URL setting, and the script checks what the
# client makes of the answers (see Scripts/clients/amap_clients.py for the calls).
#
#   Scripts/serve_clients.sh                 # PyPI clients: amap-cli, amap-python-sdk, amap-sdk, amap-mcp-server
#   AMAP_WX=path/to/amap-wx.130.js Scripts/serve_clients.sh   # also AMap's mini-program SDK, under node
#
# Needs python3 (venvs, PyPI reachable) and, for amap-wx, node. Each client gets its own venv in
# .build/clients (amap-python-sdk and amap-sdk both install a package named `amap`). Builds the
# debug CLI if needed. Prints one line per call and a summary; exits 1 if any call failed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENVS="$ROOT/.build/clients"
PORT="${PORT:-18731}"
BASE="http://127.0.0.1:$PORT"

# client → pip requirement (pins: the versions these checks were written against)
declare -A PIP=(
    [amap-cli]="amap-cli==0.1.4"
    [amap-python-sdk]="amap-python-sdk==0.1.5"
    [amap-sdk]="amap-sdk==0.1.0"
    # mcp 1.8 imports a pydantic internal that 2.11 removed
    [amap-mcp-server]="amap-mcp-server==0.1.11 pydantic<2.11"
)
CLIENTS=(amap-cli amap-python-sdk amap-sdk amap-mcp-server)

echo "building the CLI…" >&2
(cd "$ROOT" && swift build --product gazetteer >/dev/null)
BIN="$(cd "$ROOT" && swift build --product gazetteer --show-bin-path)/gazetteer"

for c in "${CLIENTS[@]}"; do
    if [ ! -x "$VENVS/$c/bin/python" ]; then
        echo "installing $c into $VENVS/$c…" >&2
        python3 -m venv "$VENVS/$c"
        # shellcheck disable=SC2086  # the requirement list splits on spaces on purpose
        "$VENVS/$c/bin/pip" install -q ${PIP[$c]} >&2
    fi
done

LOG="$(mktemp)"
"$BIN" serve --port "$PORT" >"$LOG" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -f "$LOG"' EXIT
for _ in $(seq 1 100); do
    curl -sf "$BASE/health" >/dev/null 2>&1 && break
    sleep 0.2
done
curl -sf "$BASE/health" >/dev/null || { cat "$LOG" >&2; echo "serve did not start" >&2; exit 1; }

failed=0
for c in "${CLIENTS[@]}"; do
    "$VENVS/$c/bin/python" "$ROOT/Scripts/clients/amap_clients.py" "$c" "$BASE" || failed=$((failed + 1))
done
if [ -n "${AMAP_WX:-}" ]; then
    node "$ROOT/Scripts/clients/amap_wx.js" "$AMAP_WX" "$BASE" || failed=$((failed + 1))
else
    echo "(amap-wx skipped: set AMAP_WX to a copy of amap-wx.130.js to run AMap's mini-program SDK)"
fi
echo "== $failed client(s) with a failed call"
[ "$failed" -eq 0 ]
