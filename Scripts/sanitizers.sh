#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer and/or ThreadSanitizer.
#
#   Scripts/sanitizers.sh            # address, then thread
#   Scripts/sanitizers.sh address    # or: thread
#   Scripts/sanitizers.sh thread --filter ConcurrencyTests   # extra arguments go to swift test
#
# Each sanitizer builds in its own scratch path (.build-address, .build-thread: a full debug
# build each, several minutes) so it never disturbs .build. Swift Testing runs tests in
# parallel, which is what gives ThreadSanitizer something to watch. Exits non-zero on the
# first failing sanitizer.
set -euo pipefail

cd "$(dirname "$0")/.."
sanitizers=(address thread)
if [[ $# -gt 0 && ( "$1" == address || "$1" == thread ) ]]; then
    sanitizers=("$1")
    shift
fi

# The Swift runtime's own crash backtracer would race the sanitizer for the report.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
# Swift's runtime keeps metadata caches for the life of the process: leak reports are noise.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"

for sanitizer in "${sanitizers[@]}"; do
    echo "== swift test --sanitize=$sanitizer" >&2
    started=$SECONDS
    if ! swift test --sanitize="$sanitizer" --scratch-path ".build-$sanitizer" "$@"; then
        echo "== $sanitizer: FAILED after $((SECONDS - started)) s" >&2
        exit 1
    fi
    echo "== $sanitizer: passed in $((SECONDS - started)) s" >&2
done
