#!/usr/bin/env bash
# bench/image/ops.sh — each image operation (crop, rotate, flip, blur, sharpen, overlay) through the real `flowrun`
# binary against Pillow, Pillow-SIMD and libvips (pyvips), alternating within one invocation.
#
# Usage:  bench/image/ops.sh [N] [ROUNDS] [OPS…]   (defaults: 40 photos, 3 rounds, every operation)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-bench),
#   PILLOW_SIMD_PYTHON (the python of a venv with Pillow-SIMD, ../shared/BENCHMARKS.md says how to build it:
#   `python3 -m venv V && CC="cc -mavx2" V/bin/pip install --no-binary pillow-simd pillow-simd`; without it
#   Pillow-SIMD is left out, and said so).
#
# The job per photo: decode JPEG → the operation → JPEG q85, two at a time (Pillow and vips: 2 processes, vips with
# VIPS_CONCURRENCY=1; flowrun: a queue of 2). The operations and their parameters are in bench/image/ops.yaml and
# bench/image/ops_baseline.py; the overlay is a 300×120 semi-transparent PNG made here. Every round runs each
# operation with each tool, in turn, so drift on the shared machine hits all alike; the table gives each tool's
# median photos/s and flowrun's ratio to the fastest baseline, with the load average before and after. pyvips:
# Debian's libvips42 and `pip install pyvips`; Pillow: Debian's python3-pil.
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
if [ -n "${PILLOW_SIMD_PYTHON:-}" ]; then
  "$PILLOW_SIMD_PYTHON" -c 'import PIL' || { echo "PILLOW_SIMD_PYTHON=$PILLOW_SIMD_PYTHON cannot import PIL" >&2; exit 1; }
  tools+=(simd)
else
  echo "   (PILLOW_SIMD_PYTHON not set: no Pillow-SIMD)" >&2
fi
$PY -c 'import pyvips' 2>/dev/null && tools+=(vips) || echo "   (pyvips not installed: no vips)" >&2
tools+=(flowrun)

seconds() {  # TOOL OP → wall seconds for the corpus
  local out=$WORK/out-ops/$1
  rm -rf "$out"
  local start end
  start=$(date +%s.%N)
  if [ "$1" = flowrun ]; then
    "$FLOWRUN" bench/image/ops.yaml --quiet --no-progress --no-cache --target "save-$2" \
      --param corpus="$CORPUS" --param outDir="$out" --param logo="$LOGO" >/dev/null
  elif [ "$1" = simd ]; then
    "$PILLOW_SIMD_PYTHON" bench/image/ops_baseline.py pillow "$2" "$CORPUS" "$out/$2" "$LOGO" --procs 2
  else
    $PY bench/image/ops_baseline.py "$1" "$2" "$CORPUS" "$out/$2" "$LOGO" --procs 2
  fi
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}

declare -A times
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= ROUNDS; round++)); do
  echo "== round $round" >&2
  for op in "${OPS[@]}"; do
    for tool in "${tools[@]}"; do
      times[$op,$tool]+="$(seconds "$tool" "$op") "
    done
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
printf '\n%s photos, %s rounds; load average (1, 5, 15 min) %s before, %s after\n' "$N" "$ROUNDS" "$load_before" \
  "$load_after"
printf '%-10s' "photos/s"
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
