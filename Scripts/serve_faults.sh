#!/usr/bin/env bash
# Faults a deployed `gazetteer serve` meets, each under load (see Scripts/serve/faults.py):
# an import (merge, then --replace) into the database it serves, SIGTERM with requests in
# flight, and one of two replicas behind nginx killed.
#
#   Scripts/serve_faults.sh [WORKDIR]      # default bench-out/faults; about a minute
#
# Builds the release CLI; installs nginx-light with apt-get if missing. Exits 1 on a FAIL.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="${1:-$ROOT/bench-out/faults}"
mkdir -p "$WORK"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx-light >/dev/null
echo "building the release CLI…" >&2
(cd "$ROOT" && swift build -c release --static-swift-stdlib --product gazetteer >/dev/null)
BIN="$(cd "$ROOT" && swift build -c release --static-swift-stdlib --product gazetteer --show-bin-path)/gazetteer"
cp -p "$BIN" "$WORK/gazetteer"
python3 "$ROOT/Scripts/serve/faults.py" "$WORK/gazetteer" "$ROOT/seed" "$WORK" --nginx "$(command -v nginx || echo /usr/sbin/nginx)"
