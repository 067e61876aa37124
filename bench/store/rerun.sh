#!/usr/bin/env bash
# What a rerun costs against what changed, at scale: N items (100,000 by default) of `fetch → write`, each a small
# text file copied to out/. Runs, each timed as a whole process with its CPU time (user + system) and peak RSS
# (/usr/bin/time -v):
#   cold       a fresh store, everything runs
#   unchanged  nothing changed: nothing runs
#   one-edit   one input edited: its two nodes run
#   no-cache   the cold run again with --no-cache (the store's cost on a cold run is cold / no-cache)
# Also prints the journal's size after the runs.
#
#   bench/store/rerun.sh [N]
set -euo pipefail
N=${1:-100000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-rerun-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/../lib.sh"
[ -n "${FLOWRUN:-}" ] || build_flowrun

fetch_write_workflow "$WORK" "$N" rerun-bench

measure() {  # label, then flowrun arguments → seconds and peak RSS of the whole process
  local label=$1; shift
  (cd "$WORK" && /usr/bin/time -v -o "$WORK/time" "$FLOWRUN" wf.yaml --no-progress --quiet "$@" \
    >/dev/null 2>"$WORK/stderr") || { cat "$WORK/stderr" >&2; exit 1; }
  awk -v label="$label" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = p[n] + (n > 1 ? 60 * p[n - 1] : 0) }
    /User time \(seconds\)|System time \(seconds\)/ { cpu += $NF }
    /Maximum resident set size/ { rss = $NF / 1024 }
    END { printf "%-10s %7.2f s  CPU %6.2f s  %6.0f MB\n", label, s, cpu, rss }' "$WORK/time"
}

measure cold
measure unchanged
printf 'item 5 edited\n' >"$WORK/in/f000005.txt"
measure one-edit
measure unchanged
rm -rf "$WORK/out"
measure no-cache --no-cache
printf 'journal    %7.1f MB\n' "$(du -k "$WORK"/.flowrun/*.journal | awk '{ s += $1 } END { print s / 1024 }')"
