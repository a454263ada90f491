#!/usr/bin/env bash
# Geocoding accuracy per suite and level, ours beside cpca, jionlp and addressparser, and speed
# (ours `geocode --batch` vs cpca.transform on the same addresses). From a fresh clone:
#
#   Scripts/geocode_suites.sh                                  # builds the release binary first
#   Scripts/geocode_suites.sh --gazetteer path/to/gazetteer    # another binary, no build
#   Scripts/geocode_suites.sh --only ours                      # ours alone, no peers
#
# The peers go from PyPI into bench-out/suites-venv; our failures per case go to
# bench-out/geocode-suites/<suite>-ours-failures.tsv. Suites and sources:
# Tests/GazetteerTests/Fixtures/GeocodeSuites/README.md.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/bench-out/suites-venv"
mkdir -p bench-out
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import cpca, jionlp, addressparser' 2>/dev/null; then
    echo "geocode_suites: installing cpca, jionlp, addressparser into $VENV" >&2
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q cpca jionlp addressparser six >&2  # addressparser imports six without declaring it
fi
case " $* " in
    *" --gazetteer "*) ;;
    *) nice swift build -c release --static-swift-stdlib --product gazetteer >&2 ;;
esac
exec "$VENV/bin/python" "$ROOT/Scripts/geocode_suites.py" "$@"
