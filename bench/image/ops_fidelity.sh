#!/usr/bin/env bash
# bench/image/ops_fidelity.sh — how close each image operation's pixels are to Pillow's and libvips': the 20 distinct
# photos through flowrun (bench/image/ops-fidelity.yaml), Pillow and libvips (bench/image/ops_baseline.py --png),
# every output written losslessly as PNG, then bench/image/fidelity.py per operation and tool: the lowest PSNR over
# the photos (dB), the photo it was on, the largest channel difference anywhere, and the mean PSNR.
#
# Usage:  bench/image/ops_fidelity.sh [OPS…]   (default: every operation)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-bench). Pillow:
#   Debian's python3-pil; libvips: Debian's libvips42 and `pip install pyvips`.
#
# The decoders are the same library (libjpeg-turbo, islow IDCT, fancy upsampling) on every side, so a quarter turn,
# a flip and a crop are expected to be identical; where the definitions differ (Pillow's blur is three box blurs,
# vips' sharpen works on L* of LabS, bilinear rotation's pixel-centre conventions) the figures say by how much.
set -euo pipefail
OPS=("$@")
[ ${#OPS[@]} -gt 0 ] || OPS=(crop rotate90 rotate7 flip blur sharpen overlay)
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm/flowrun-bench || echo /tmp/flowrun-bench)}
mkdir -p "$WORK"
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun
[ -d "$SHARED/photos" ] || { echo "no photos in $SHARED/photos: set SHARED" >&2; exit 1; }
CORPUS=$(corpus "$(ls "$SHARED"/photos/*.jpg | wc -l)")
PY=/usr/bin/python3
LOGO=$WORK/logo.png
$PY bench/image/ops_baseline.py logo "$LOGO"
OUT=$WORK/out-fidelity
rm -rf "$OUT"
baselines=(pillow)
$PY -c 'import pyvips' 2>/dev/null && baselines+=(vips) || echo "   (pyvips not installed: no vips)" >&2

printf '%-10s %-8s %10s %-14s %8s %10s  %s\n' operation against "lowest dB" "on" "largest" "mean dB" \
  "sizes differed (compared about the centre)"
for op in "${OPS[@]}"; do
  "$FLOWRUN" bench/image/ops-fidelity.yaml --quiet --no-progress --no-cache --target "save-$op" \
    --param corpus="$CORPUS" --param outDir="$OUT/flowrun" --param logo="$LOGO" >/dev/null
  for tool in "${baselines[@]}"; do
    $PY bench/image/ops_baseline.py "$tool" "$op" "$CORPUS" "$OUT/$tool/$op" "$LOGO" --png
    read -r lowest on largest mean cut < <($PY bench/image/fidelity.py "$OUT/$tool/$op" "$OUT/flowrun/$op" --centre)
    printf '%-10s %-8s %10s %-14s %8s %10s  %s\n' "$op" "$tool" "$lowest" "$on" "$largest" "$mean" "$cut of 20"
  done
done
