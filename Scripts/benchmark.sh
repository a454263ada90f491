#!/usr/bin/env bash
# The benchmark, side by side with its peers (BENCHMARKS.md). From a fresh clone:
#
#   Scripts/benchmark.sh                    # 1,000,000 generated POIs (about 10 minutes)
#   Scripts/benchmark.sh --size 10000000    # 10M
#   Scripts/benchmark.sh --size 20000 --queries 200 --batch-points 20000   # a smoke run, ~2 min
#   Scripts/benchmark.sh --help             # every option (Scripts/benchmark.py)
#
# Installs what is missing (as root: sqlite3, libsqlite3-mod-spatialite, postgresql with PostGIS, python3-venv, and
# reverse_geocoder from PyPI into bench-out/venv), builds the release binaries, then runs
# Scripts/benchmark.py. A peer that cannot be installed is reported by the run, not skipped
# silently. Work files and results go to bench-out/ (ignored by git).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
case " $* " in
    *" --help "*|*" -h "*) exec python3 "$ROOT/Scripts/benchmark.py" --help ;;
esac
command -v swift >/dev/null 2>&1 || { echo "benchmark: needs a Swift 6 toolchain on PATH (swift.org/install)" >&2; exit 1; }
OUT="$ROOT/bench-out"
mkdir -p "$OUT"
LOG="$OUT/benchmark-setup.log"
: > "$LOG"
say() { echo "benchmark: $*" >&2; }
started=$SECONDS

# Debian packages: the build (libsqlite3-dev, pkg-config), the peers, Debian's own python3
# (its sqlite3 module can load extensions, which mod_spatialite needs).
need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
[ -f /usr/include/sqlite3.h ] || need+=(libsqlite3-dev)
command -v sqlite3 >/dev/null 2>&1 || need+=(sqlite3)
[ -x /usr/bin/python3 ] || need+=(python3)
/usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need+=(python3-venv)
ls /usr/lib/*/mod_spatialite.so >/dev/null 2>&1 || need+=(libsqlite3-mod-spatialite)
# PostgreSQL with PostGIS and pg_trgm, the import's peer (a throw-away cluster per run).
pg_version=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || need+=(postgresql postgresql-contrib)
ls /usr/lib/postgresql/*/lib/postgis-3.so >/dev/null 2>&1 || need+=("postgresql-${pg_version:-15}-postgis-3")
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        say "installing ${need[*]}"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -qq "${need[@]}"; } >>"$LOG" 2>&1 \
            || say "apt-get install ${need[*]} failed (see $LOG); the run reports what is missing"
    else
        say "missing ${need[*]}: run as root or apt-get install them; the run reports what is missing"
    fi
fi

# reverse_geocoder (and numpy, scipy) from PyPI into a venv of Debian's python3.
PY=/usr/bin/python3
VENV="$OUT/venv"
if [ -x /usr/bin/python3 ]; then
    if [ ! -x "$VENV/bin/python" ]; then
        /usr/bin/python3 -m venv "$VENV" >>"$LOG" 2>&1 || say "cannot make a venv (see $LOG)"
    fi
    if [ -x "$VENV/bin/python" ]; then
        PY="$VENV/bin/python"
        "$PY" -c 'import reverse_geocoder' >/dev/null 2>&1 \
            || { say "pip install reverse_geocoder"; "$PY" -m pip install -q reverse_geocoder >>"$LOG" 2>&1; } \
            || say "pip install reverse_geocoder failed (see $LOG); the run reports it as missing"
    fi
else
    PY=python3
fi

# Built as README's "Installing the CLI" builds it: the Swift runtime linked in, as an installed
# binary carries it (the whole command is timed, its start included).
say "swift build -c release --static-swift-stdlib"
(cd "$ROOT" && swift build -c release --static-swift-stdlib --product gazetteer \
    && swift build -c release --static-swift-stdlib --product gazetteer-bench) >>"$LOG" 2>&1 \
    || { tail -n 30 "$LOG" >&2; say "the release build failed"; exit 1; }
say "setup took $((SECONDS - started)) s"

exec "$PY" "$ROOT/Scripts/benchmark.py" --peer-python "$PY" "$@"
