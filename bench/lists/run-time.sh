#!/usr/bin/env bash
# A list made at run time at scale: a `command` prints N lines (100,000 by default), and each is an item of a cheap
# consumer — a `noop`, or a `fetch → write` copy of a small file that the store remembers. Runs, each timed as a
# whole process with its peak RSS (/usr/bin/time -v), beside the same items from a list file ({ file: LIST }):
#   noop            `seq N` into a noop per item, no store; the items stream (each starts once its line is printed)
#   noop whole      the same with `failFast: true`, which reads the whole list before any item starts (as every
#                   list did before lines streamed)
#   paced           a producer that prints the N lines in 10 parts, 0.2 s apart, into a noop per item: streamed,
#                   and whole (`failFast: true`)
#   trickle         a producer that prints N/10 lines one at a time, 0.2 ms apart, into a noop per item: streamed,
#                   and whole — what planning batches costs when lines come one by one (its CPU time is the figure)
#   copy cold       a fresh store: the producer, then every item's chain
#   copy unchanged  the same list again: the producer runs, every item is found in the store
#   copy one-new    the producer prints one more line: that item's chain runs alone
# Then, from the paced producer's trace, when the first consumer started and when the producer ended.
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
sed 's/^name: run-time-noop$/name: run-time-noop-whole\nfailFast: true/' "$WORK/noop.yaml" >"$WORK/noop-whole.yaml"
cat >"$WORK/paced.yaml" <<YAML
version: 1
name: run-time-paced
tasks:
  list: { type: command, argv: [awk, 'BEGIN { for (i = 1; i <= $N; i++) { print i; if (i % ($N / 10) == 0) { fflush(); system("sleep 0.2") } } }'] }
  each: { type: noop, forEach: { from: list } }
YAML
sed 's/^name: run-time-paced$/name: run-time-paced-whole\nfailFast: true/' "$WORK/paced.yaml" >"$WORK/paced-whole.yaml"
cat >"$WORK/trickle.yaml" <<YAML
version: 1
name: run-time-trickle
tasks:
  list: { type: command, argv: [python3, -c, "import time\nfor i in range($((N / 10))): print(i, flush=True); time.sleep(0.0002)"] }
  each: { type: noop, forEach: { from: list } }
YAML
sed 's/^name: run-time-trickle$/name: run-time-trickle-whole\nfailFast: true/' "$WORK/trickle.yaml" >"$WORK/trickle-whole.yaml"
cat >"$WORK/static-noop.yaml" <<'YAML'
version: 1
name: static-noop
tasks:
  each: { type: noop, forEach: { file: numbers.txt } }
YAML
cat >"$WORK/copy.yaml" <<'YAML'
version: 1
name: run-time-copy
tasks:
  list: { type: command, argv: [cat, names.txt] }
  read: { type: fetch, forEach: { from: list }, url: "${item}" }
  save: { type: write, path: "out/${item.stem}.txt", dependsOn: read }
YAML
cat >"$WORK/static-copy.yaml" <<'YAML'
version: 1
name: static-copy
tasks:
  read: { type: fetch, forEach: { file: names.txt }, url: "${item}" }
  save: { type: write, path: "static-out/${item.stem}.txt", dependsOn: read }
YAML
seq "$N" >"$WORK/numbers.txt"
python3 - "$WORK" "$N" <<'PY'
import os, sys
work, count = sys.argv[1], int(sys.argv[2])
os.makedirs(f"{work}/in")
with open(f"{work}/names.txt", "w") as names:
    for i in range(count + 1):
        with open(f"{work}/in/f{i:06d}.txt", "w") as f:
            f.write(f"item {i}\n")
        if i < count:
            names.write(f"in/f{i:06d}.txt\n")
PY

measure() {  # label, workflow, then flowrun arguments → seconds, CPU seconds and peak RSS of the whole process
  local label=$1 workflow=$2; shift 2
  (cd "$WORK" && /usr/bin/time -v -o "$WORK/time" "$FLOWRUN" "$workflow" --no-progress --quiet "$@" \
    >/dev/null 2>"$WORK/stderr") || { cat "$WORK/stderr" >&2; exit 1; }
  awk -v label="$label" '
    /Elapsed \(wall clock\)/ { n = split($NF, p, ":"); s = p[n] + (n > 1 ? 60 * p[n - 1] : 0) }
    /User time|System time/ { cpu += $NF }
    /Maximum resident set size/ { rss = $NF / 1024 }
    END { printf "%-16s %7.2f s  %7.2f s CPU  %6.0f MB\n", label, s, cpu, rss }' "$WORK/time"
}

measure "noop" noop.yaml --no-cache
measure "noop whole" noop-whole.yaml --no-cache
measure "static noop" static-noop.yaml --no-cache
measure "paced" paced.yaml --no-cache --trace trace.json
measure "paced whole" paced-whole.yaml --no-cache
measure "trickle" trickle.yaml --no-cache
measure "trickle whole" trickle-whole.yaml --no-cache
measure "copy cold" copy.yaml
measure "static copy cold" static-copy.yaml
measure "copy unchanged" copy.yaml
measure "static unchanged" static-copy.yaml
printf 'in/f%06d.txt\n' "$N" >>"$WORK/names.txt"
measure "copy one-new" copy.yaml --report report.json
measure "static one-new" static-copy.yaml
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
print(f"paced: first consumer {(first - producer['ts']) / 1000:.1f} ms after the producer started; "
      f"producer ran {producer['dur'] / 1000:.1f} ms")
PY
