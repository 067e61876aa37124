#!/usr/bin/env bash
# What the store costs a cold run: N items (100,000 by default) of `fetch → write`, run with the store and with
# --no-cache, alternated, ROUNDS times (5 by default). Each run gets an ext4 file system made afresh for it: a loop
# device copied from one image holding the inputs, its page cache warmed. On a file system reused between runs,
# creating 100,000 files just after deleting as many made ext4 search its inode tables, and a run's system time
# swung threefold from one to the next. Needs root (mount) and mkfs.ext4; prints each run, then the medians and
# the median of the per-round ratios (store / --no-cache).
#
#   sudo bench/store/cold-cost.sh [N] [ROUNDS]
set -euo pipefail
N=${1:-100000}
ROUNDS=${2:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-cold-cost.XXXXXX")
MOUNT=$WORK/mnt
cleanup() {
  mountpoint -q "$MOUNT" && umount "$MOUNT"
  rm -rf "$WORK"
}
trap cleanup EXIT
source "$(dirname "$0")/../lib.sh"
[ -n "${FLOWRUN:-}" ] || build_flowrun
[ "$(id -u)" = 0 ] || { echo "cold-cost.sh mounts a loop device: run it as root" >&2; exit 2; }

mkdir -p "$MOUNT"
truncate -s 3G "$WORK/image"
# Inodes for the inputs, the outputs and the store, with room: the default ratio gives a 3 GB file system fewer.
mkfs.ext4 -q -F -N $((4 * N + 10000)) "$WORK/image"
mount -o loop "$WORK/image" "$MOUNT"
fetch_write_workflow "$MOUNT/w" "$N" cold-cost-bench
umount "$MOUNT"

run() {  # label, then flowrun arguments → "label wall cpu" of one cold run on a fresh copy of the image
  local label=$1; shift
  cp --sparse=always "$WORK/image" "$WORK/run"
  mount -o loop "$WORK/run" "$MOUNT"
  find "$MOUNT/w/in" -type f -exec cat {} + >/dev/null
  (cd "$MOUNT/w" && /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$FLOWRUN" wf.yaml --no-progress --quiet "$@" \
    >/dev/null 2>"$WORK/stderr") || { cat "$WORK/stderr" >&2; exit 1; }
  umount "$MOUNT"
  rm -f "$WORK/run"
  awk -v label="$label" '{ printf "%s %.2f %.2f\n", label, $1, $2 + $3 }' "$WORK/time"
}

for ((round = 1; round <= ROUNDS; round++)); do
  run store | tee -a "$WORK/runs"
  run no-cache --no-cache | tee -a "$WORK/runs"
done
for label in store no-cache; do
  printf '%-9s median wall %s s, CPU %s s\n' "$label" \
    "$(awk -v l="$label" '$1 == l { print $2 }' "$WORK/runs" | median)" \
    "$(awk -v l="$label" '$1 == l { print $3 }' "$WORK/runs" | median)"
done
printf 'store / no-cache, median of the per-round ratios: wall %s, CPU %s\n' \
  "$(awk '$1 == "store" { w = $2 } $1 == "no-cache" { printf "%.3f\n", w / $2 }' "$WORK/runs" | median)" \
  "$(awk '$1 == "store" { c = $3 } $1 == "no-cache" { printf "%.3f\n", c / $3 }' "$WORK/runs" | median)"
