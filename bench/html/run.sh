#!/usr/bin/env bash
# bench/html/run.sh — what `--html` costs a run: the 200-photo sepia-thumbnail job of bench/image/cli.sh through the
# `flowrun` binary, alternating runs without and with `--html` (which also makes a thumbnail of every image written),
# and the page's size at 1,000 photos. Wall time and CPU time (user + system) are both compared: on a machine
# shared with other work, CPU time is the steadier of the two.
#
# Usage:  bench/html/run.sh [N] [ROUNDS]        (defaults: 200 photos, 7 rounds)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-bench).
set -euo pipefail
N=${1:-200}
ROUNDS=${2:-7}
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm/flowrun-bench || echo /tmp/flowrun-bench)}
mkdir -p "$WORK"
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun

seconds() {  # CORPUS [flags] → "wall cpu" seconds of one run
  local corpus=$1; shift
  rm -rf "$WORK/out-html"
  /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$FLOWRUN" bench/image/sepia-thumbnails-bench.yaml --quiet --no-progress \
    --param corpus="$corpus" --param outDir="$WORK/out-html" "$@" >/dev/null 2>"$WORK/stderr" \
    || { cat "$WORK/stderr" >&2; exit 1; }
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/time"
}

CORPUS=$(corpus "$N")
echo "corpus: $N photos; each round runs without --html, then with it (the order swapped every other round)"
printf '%-6s %16s %16s %12s %12s\n' round "plain wall/cpu" "html wall/cpu" "wall ratio" "cpu ratio"
wall=(); cpu=()
for ((r = 1; r <= ROUNDS; r++)); do
  if ((r % 2)); then
    read -r pw pc < <(seconds "$CORPUS"); read -r hw hc < <(seconds "$CORPUS" --html "$WORK/run.html")
  else
    read -r hw hc < <(seconds "$CORPUS" --html "$WORK/run.html"); read -r pw pc < <(seconds "$CORPUS")
  fi
  wall+=("$(awk -v p="$pw" -v h="$hw" 'BEGIN { printf "%.3f", h / p }')")
  cpu+=("$(awk -v p="$pc" -v h="$hc" 'BEGIN { printf "%.3f", h / p }')")
  printf '%-6s %7ss/%6ss %7ss/%6ss %11sx %11sx\n' "$r" "$pw" "$pc" "$hw" "$hc" "${wall[-1]}" "${cpu[-1]}"
done
echo "median ratio with --html: wall $(printf '%s\n' "${wall[@]}" | median)x," \
  "cpu $(printf '%s\n' "${cpu[@]}" | median)x (target ≤ 1.05x)"
seconds "$(corpus 1000)" --html "$WORK/run-1000.html" >/dev/null
echo "page size at 1,000 photos: $(du -k "$WORK/run-1000.html" | cut -f1) KB (target ≤ 5 MB)"
