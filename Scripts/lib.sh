# Shared by the reliability scripts (crash_import.sh, readers_during_import.sh); sourced, not run.
# Expects ROOT, OUT and LOG set and a `die` function defined.

# private_cli: builds the release CLI when it is missing or older than the sources, then
# prints the path of a private copy in $OUT. The copy keeps the run on one build even if
# .build is rebuilt meanwhile (the expected answers depend on the build that made them).
private_cli() {
    local bin="$ROOT/.build/release/gazetteer"
    if [ ! -x "$bin" ] || [ -n "$(find "$ROOT/Sources" "$ROOT/Package.swift" "$ROOT/schema.sql" -newer "$bin" -print -quit 2>/dev/null)" ]; then
        echo "building the release CLI…" >&2
        (cd "$ROOT" && swift build -c release --static-swift-stdlib --product gazetteer) >>"$LOG" 2>&1 \
            || { tail -n 30 "$LOG" >&2; die "swift build -c release failed"; }
    fi
    cp -p "$bin" "$OUT/gazetteer"
    echo "$OUT/gazetteer"
}

# rmdb DB: removes a database and its -wal, -shm and -journal files.
rmdb() { rm -f "$1" "$1-wal" "$1-shm" "$1-journal"; }
