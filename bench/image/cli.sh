#!/usr/bin/env bash
# bench/image/cli.sh — the image pipeline through the real `flowrun` binary, against Pillow, alternating.
#
# Usage:  bench/image/cli.sh [N] [ROUNDS]        (defaults: 200 photos, 3 rounds)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-bench).
#
# Each round runs Pillow (2 processes), `flowrun --no-optimize` (literal) and `flowrun` (shrink-on-load,
# colour after resize) on bench/image/sepia-thumbnails-bench.yaml; photos/s include process start, workflow
# loading, reading and writing files. Ratios are per round. Then peak RSS of the optimised run at 100 and
# 1,000 photos (flat: outputs are released as soon as they are consumed). libvips and ImageMagick rows appear
# when `vips`/`convert` are installed: see ../shared/bench/ for their scripts.
set -euo pipefail
N=${1:-200}
ROUNDS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm/flowrun-bench || echo /tmp/flowrun-bench)}
mkdir -p "$WORK"
cd "$ROOT"
swift build -c release --product flowrun >&2
FLOWRUN=$ROOT/.build/release/flowrun

corpus() {  # N → path of a corpus of N photos (round-robin copies of $SHARED/photos)
  local dir=$WORK/corpus-$1
  if [ "$(ls "$dir" 2>/dev/null | wc -l)" != "$1" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    local photos=("$SHARED"/photos/*.jpg)
    for ((i = 0; i < $1; i++)); do cp "${photos[i % ${#photos[@]}]}" "$(printf '%s/img%04d.jpg' "$dir" "$i")"; done
  fi
  echo "$dir"
}

rate() {  # N SECONDS → photos/s
  awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n / s }'
}

timed() {  # command... → "seconds peakKB"
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  cat "$WORK/time"
}

flowrun_run() {  # CORPUS [flags] → "seconds peakKB"
  local corpus=$1; shift
  rm -rf "$WORK/out-cli"
  timed "$FLOWRUN" bench/image/sepia-thumbnails-bench.yaml --quiet --no-progress \
    --param corpus="$corpus" --param outDir="$WORK/out-cli" "$@"
}

CORPUS=$(corpus "$N")
echo "corpus: $N photos ($CORPUS)"
printf '%-6s %9s %9s %9s %12s %12s\n' round pillow literal optimised literal/pil optimised/pil
for ((r = 1; r <= ROUNDS; r++)); do
  rm -rf "$WORK/out-pillow"
  read -r ps _ < <(timed /usr/bin/python3 "$SHARED/bench/pipeline_pillow.py" --procs 2 "$CORPUS" "$WORK/out-pillow")
  read -r ls lkb < <(flowrun_run "$CORPUS" --no-optimize)
  read -r os okb < <(flowrun_run "$CORPUS")
  p=$(rate "$N" "$ps"); l=$(rate "$N" "$ls"); o=$(rate "$N" "$os")
  awk -v r="$r" -v p="$p" -v l="$l" -v o="$o" \
    'BEGIN { printf "%-6s %9s %9s %9s %11.2fx %11.2fx\n", r, p, l, o, l / p, o / p }'
done
echo "peak RSS, optimised run:"
for n in 100 1000; do
  read -r s kb < <(flowrun_run "$(corpus "$n")")
  printf '  %5d photos: %4d MB (%s photos/s)\n' "$n" "$((kb / 1024))" "$(rate "$n" "$s")"
done
