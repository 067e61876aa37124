#!/usr/bin/env bash
# A list made at run time at scale: a `command` prints N lines (100,000 by default, `seq`), and each is an item of a
# cheap consumer (`noop`, or with `cache: true` an `echo` per item, which the store keeps). Runs, each timed as a
# whole process with its peak RSS (/usr/bin/time -v):
#   cold         a fresh store: the producer, then every item's node
#   unchanged    the same list again: the producer runs, every item is found in the store
#   one-new      the producer prints one more line: that item's node runs alone
#   static       for comparison, the same items from a list file ({ file: LIST }) with a noop each
# Then the time until the first consumer started after the producer began, from the trace: the producer runs to
# its end before the items start (lines are not streamed to consumers yet), so it is at least the producer's time.
#
#   bench/lists/run-time.sh [N]
set -euo pipefail
N=${1:-100000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-lists-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/../lib.sh"
[ -n "${FLOWRUN:-}" ] || build_flowrun

cat >"$WORK/noop.yaml" <<YAML
version: 1
name: run-time-noop
tasks:
  list: { type: command, argv: [seq, "$N"] }
  each: { type: noop, forEach: { from: list } }
YAML
cat >"$WORK/cached.yaml" <<'YAML'
version: 1
name: run-time-cached
tasks:
  list: { type: command, argv: [cat, names.txt] }
  each: { type: command, cache: true, forEach: { from: list }, argv: [echo, "${item}"] }
YAML
cat >"$WORK/static.yaml" <<'YAML'
version: 1
name: static-noop
tasks:
  each: { type: noop, forEach: { file: names.txt } }
YAML
seq "$N" >"$WORK/names.txt"

measure() {  # label, workflow, then flowrun arguments → seconds and peak RSS of the whole process
  local label=$1 workflow=$2; shift 2
  (cd "$WORK" && /usr/bin/time -v -o "$WORK/time" "$FLOWRUN" "$workflow" --no-progress --quiet "$@" \
    >/dev/null 2>"$WORK/stderr") || { cat "$WORK/stderr" >&2; exit 1; }
  awk -v label="$label" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = p[n] + (n > 1 ? 60 * p[n - 1] : 0) }
    /Maximum resident set size/ { rss = $NF / 1024 }
    END { printf "%-16s %7.2f s  %6.0f MB\n", label, s, rss }' "$WORK/time"
}

measure "noop cold" noop.yaml --no-cache --trace trace.json
measure "static noop" static.yaml --no-cache
measure "cached cold" cached.yaml
measure "cached same" cached.yaml
echo "$((N + 1))" >>"$WORK/names.txt"
measure "cached one-new" cached.yaml --report report.json
python3 - "$WORK" <<'PY'
import json, sys
work = sys.argv[1]
ran = [n["id"] for n in json.load(open(f"{work}/report.json"))["nodes"] if n["status"] == "succeeded"]
print(f"one-new ran      {len(ran)} nodes: {', '.join(ran[:4])}")
events = json.load(open(f"{work}/trace.json"))
events = events["traceEvents"] if isinstance(events, dict) else events
spans = [e for e in events if e.get("ph") == "X"]
producer = next(e for e in spans if e.get("name") == "list")
first = min(e["ts"] for e in spans if e.get("name", "").startswith("each["))
print(f"first consumer   {(first - producer['ts']) / 1000:.1f} ms after the producer started; "
      f"producer ran {producer['dur'] / 1000:.1f} ms")
PY
