#!/usr/bin/env bash
# bench/image/ops.sh — each image operation (crop, rotate, flip, blur, sharpen, overlay) through the real `flowrun`
# binary against Pillow and libvips (pyvips), alternating within one invocation.
#
# Usage:  bench/image/ops.sh [N] [ROUNDS] [OPS…]   (defaults: 40 photos, 3 rounds, every operation)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-bench).
#
# The job per photo: decode JPEG → the operation → JPEG q85, two at a time (Pillow and vips: 2 processes, vips with
# VIPS_CONCURRENCY=1; flowrun: a queue of 2). The operations and their parameters are in bench/image/ops.yaml and
# bench/image/ops_baseline.py; the overlay is a 300×120 semi-transparent PNG made here. Every round runs each
# operation with each tool, in turn, so drift on the shared machine hits all alike; the table gives each tool's
# median photos/s and flowrun's ratio to the fastest baseline. pyvips: Debian's libvips42 and `pip install pyvips`;
# Pillow: Debian's python3-pil.
set -euo pipefail
N=${1:-40}
ROUNDS=${2:-3}
shift $(($# < 2 ? $# : 2))
OPS=("$@")
[ ${#OPS[@]} -gt 0 ] || OPS=(crop rotate90 rotate7 flip blur sharpen overlay)
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm/flowrun-bench || echo /tmp/flowrun-bench)}
mkdir -p "$WORK"
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun
[ -d "$SHARED/photos" ] || { echo "no photos in $SHARED/photos: set SHARED" >&2; exit 1; }
CORPUS=$(corpus "$N")
PY=/usr/bin/python3
LOGO=$WORK/logo.png
$PY -c "
from PIL import Image, ImageDraw
im = Image.new('RGBA', (300, 120), (0, 0, 0, 0))
d = ImageDraw.Draw(im)
d.rounded_rectangle((0, 0, 299, 119), 24, fill=(255, 255, 255, 160))
d.text((40, 45), 'flowrun watermark', fill=(20, 20, 20, 255))
im.save('$LOGO')"

tools=(pillow)
$PY -c 'import pyvips' 2>/dev/null && tools+=(vips) || echo "   (pyvips not installed: Pillow only)" >&2
tools+=(flowrun)

seconds() {  # TOOL OP → wall seconds for the corpus
  local out=$WORK/out-ops/$1
  rm -rf "$out"
  local start end
  start=$(date +%s.%N)
  if [ "$1" = flowrun ]; then
    "$FLOWRUN" bench/image/ops.yaml --quiet --no-progress --no-cache --target "save-$2" \
      --param corpus="$CORPUS" --param outDir="$out" --param logo="$LOGO" >/dev/null
  else
    $PY bench/image/ops_baseline.py "$1" "$2" "$CORPUS" "$out/$2" "$LOGO" --procs 2
  fi
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

declare -A times
for ((round = 1; round <= ROUNDS; round++)); do
  echo "== round $round" >&2
  for op in "${OPS[@]}"; do
    for tool in "${tools[@]}"; do
      times[$op,$tool]+="$(seconds "$tool" "$op") "
    done
  done
done

printf '\n%-10s' "photos/s"
for tool in "${tools[@]}"; do printf '%10s' "$tool"; done
printf '%22s\n' "flowrun / fastest"
for op in "${OPS[@]}"; do
  printf '%-10s' "$op"
  best=0
  for tool in "${tools[@]}"; do
    med=$(tr ' ' '\n' <<<"${times[$op,$tool]}" | grep . | median)
    rate=$(awk -v n="$N" -v s="$med" 'BEGIN { printf "%.1f", n / s }')
    printf '%10s' "$rate"
    if [ "$tool" != flowrun ]; then best=$(awk -v a="$best" -v b="$rate" 'BEGIN { print (b > a) ? b : a }'); fi
    last=$rate
  done
  awk -v f="$last" -v b="$best" 'BEGIN { printf "%21.2fx\n", f / b }'
done
