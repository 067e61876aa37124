#!/usr/bin/env bash
# What `cache: true` on decode costs and saves, through the flowrun binary.
#
#   bench/store/blobs.sh [ROUNDS]      # 3 rounds by default
#
# The 200-photo sepia-thumbnail job (bench/store/sepia-cached.yaml), alternated round by round (the machine
# drifts by ±25%), whole-process time and peak RSS, medians:
# 1. cold: with `cache: true` on decode (every decoded image written as a blob) against the same job without it;
# 2. after a cold run, `--param intensity=0.5`: with `cache: true` (decode restored from blobs, not run) against
#    the job without it (fetch and decode run again); outputs compared with a --no-cache run's, byte for byte.
# Also: the blob bytes per photo.
set -euo pipefail
ROUNDS=${1:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-blobs-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun

corpus=$(corpus 200)
cp bench/store/sepia-cached.yaml "$WORK/cached.yaml"
sed 's/, cache: true//' bench/store/sepia-cached.yaml >"$WORK/plain.yaml"

measure() {  # file, then the flowrun arguments → appends "seconds peakKB" to file
  local file=$1; shift
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$FLOWRUN" "$@" --no-progress --quiet >/dev/null 2>"$WORK/stderr" \
    || { cat "$WORK/stderr" >&2; exit 1; }
  cat "$WORK/time" >>"$file"
}

report() {  # label, file with cache: true, file without
  local with without
  with=$(cut -d' ' -f1 "$2" | median); without=$(cut -d' ' -f1 "$3" | median)
  printf '%-44s cache: true %6.2f s (%s MB)  without %6.2f s (%s MB)  ratio %.3f\n' "$1" "$with" \
    "$(($(cut -d' ' -f2 "$2" | median | cut -d. -f1) / 1024))" "$without" \
    "$(($(cut -d' ' -f2 "$3" | median | cut -d. -f1) / 1024))" \
    "$(awk -v a="$with" -v b="$without" 'BEGIN { print a / b }')"
}

args() { echo --param corpus="$corpus" --param outDir="$WORK/out"; }
for name in cold-with cold-without rerun-with rerun-without; do : >"$WORK/$name.txt"; done
for ((round = 0; round < ROUNDS; round++)); do
  for variant in with without; do
    yaml=$WORK/cached.yaml; [[ $variant == without ]] && yaml=$WORK/plain.yaml
    rm -rf "$WORK/state" "$WORK/out"
    # shellcheck disable=SC2046
    measure "$WORK/cold-$variant.txt" "$yaml" $(args) --state-dir "$WORK/state"
    # shellcheck disable=SC2046
    measure "$WORK/rerun-$variant.txt" "$yaml" $(args) --state-dir "$WORK/state" --param intensity=0.5
  done
done
blobs=$(du -sb "$WORK/state/blobs" 2>/dev/null | cut -f1 || echo 0)
rm -rf "$WORK/state"
"$FLOWRUN" "$WORK/cached.yaml" $(args) --state-dir "$WORK/state" --no-progress --quiet >/dev/null
blobs=$(du -sb "$WORK/state/blobs" | cut -f1)
"$FLOWRUN" "$WORK/cached.yaml" $(args) --state-dir "$WORK/state" --no-progress --param intensity=0.5 | tail -1
find "$WORK/out" -type f -exec md5sum {} + | sort >"$WORK/restored.md5"
rm -rf "$WORK/out"
"$FLOWRUN" "$WORK/cached.yaml" $(args) --no-cache --no-progress --quiet --param intensity=0.5 >/dev/null
find "$WORK/out" -type f -exec md5sum {} + | sort >"$WORK/cold.md5"
echo "200 photos, median of $ROUNDS rounds, alternated:"
report "cold run" "$WORK/cold-with.txt" "$WORK/cold-without.txt"
report "then --param intensity=0.5" "$WORK/rerun-with.txt" "$WORK/rerun-without.txt"
echo "blobs: $((blobs / 200)) bytes per photo ($((blobs / 1048576)) MB for 200 decoded images at the scale decode chose)"
if cmp -s "$WORK/restored.md5" "$WORK/cold.md5"; then
  echo "outputs of the run on restored images: byte-identical to a --no-cache run's ($(wc -l <"$WORK/cold.md5") files)"
else
  echo "error: outputs differ from a --no-cache run's" >&2; exit 1
fi
