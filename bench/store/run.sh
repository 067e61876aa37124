#!/usr/bin/env bash
# What the store costs and what it saves, through the flowrun binary.
#
#   bench/store/run.sh [ROUNDS]      # 5 rounds by default
#
# 1. Cost on a cold run: the 200-photo sepia-thumbnail job (bench/image) and a 20,000-node chain of noops, each
#    run with a fresh store and with --no-cache, alternated round by round (the machine drifts by ±25%);
#    medians and the store/--no-cache ratio.
# 2. What it saves: the 1,000-photo gallery (bench/gallery) run cold, then again: the second run's whole-process
#    time, its share of the cold run's, and whether any output was rewritten (inode, mtime, size).
set -euo pipefail
ROUNDS=${1:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-store-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun

seconds() {  # command... → wall seconds of the whole process
  /usr/bin/time -f '%e' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  cat "$WORK/time"
}

python3 - "$WORK/chain.yaml" <<'PY'
import sys
lines = ["version: 1", "name: chain-20000", "tasks:", "  t0: { type: noop }"]
lines += [f"  t{i}: {{ type: noop, dependsOn: t{i - 1} }}" for i in range(1, 20000)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
images=$(corpus 200)

cold() {  # label, then the flowrun arguments
  local label=$1; shift
  : >"$WORK/store.txt"; : >"$WORK/nocache.txt"
  for ((round = 0; round < ROUNDS; round++)); do
    rm -rf "$WORK/state" "$WORK/out"
    seconds "$FLOWRUN" "$@" --no-progress --quiet --state-dir "$WORK/state" >>"$WORK/store.txt"
    rm -rf "$WORK/out"
    seconds "$FLOWRUN" "$@" --no-progress --quiet --no-cache >>"$WORK/nocache.txt"
  done
  local with without
  with=$(median <"$WORK/store.txt"); without=$(median <"$WORK/nocache.txt")
  printf '%-34s store %6.2f s  --no-cache %6.2f s  ratio %.3f  (rounds: %s | %s)\n' "$label" "$with" "$without" \
    "$(awk -v a="$with" -v b="$without" 'BEGIN { print a / b }')" "$(tr '\n' ' ' <"$WORK/store.txt")" \
    "$(tr '\n' ' ' <"$WORK/nocache.txt")"
}

echo "cold runs, store vs --no-cache (median of $ROUNDS, alternated):"
cold "sepia thumbnails, 200 photos" bench/image/sepia-thumbnails-bench.yaml \
  --param corpus="$images" --param outDir="$WORK/out"
cold "no-op chain, 20,000 nodes" "$WORK/chain.yaml"

gallery=$(corpus 1000)
arguments=(bench/gallery/gallery-bench.yaml --no-progress --quiet --param corpus="$gallery" --param outDir="$WORK/out"
  --state-dir "$WORK/gallery-state")
rm -rf "$WORK/out"
first=$(seconds "$FLOWRUN" "${arguments[@]}")
find "$WORK/out" -name '*.jpg' -printf '%i %T@ %s %p\n' | sort >"$WORK/before.txt"
second=$(seconds "$FLOWRUN" "${arguments[@]}")
find "$WORK/out" -name '*.jpg' -printf '%i %T@ %s %p\n' | sort >"$WORK/after.txt"
"$FLOWRUN" "${arguments[@]/--quiet/--no-progress}" | tail -1 >"$WORK/summary.txt"
echo
echo "gallery, 1,000 photos: cold $first s, second run $second s" \
  "($(awk -v a="$second" -v b="$first" 'BEGIN { printf "%.1f", 100 * a / b }')% of cold); $(cat "$WORK/summary.txt")"
if cmp -s "$WORK/before.txt" "$WORK/after.txt"; then
  echo "no output rewritten: $(wc -l <"$WORK/after.txt") files with the same inode, mtime and size"
else
  echo "error: outputs were rewritten" >&2; exit 1
fi
