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
# median photos/s (wall) and flowrun's ratio to the fastest baseline, then each tool's median CPU time per photo
# (user + system, the steadier figure when other work shares the cores) and the lowest baseline's over flowrun's,
# with the load average before and after. pyvips:
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
$PY bench/image/ops_baseline.py logo "$LOGO"

tools=(pillow)
if [ -n "${PILLOW_SIMD_PYTHON:-}" ]; then
  "$PILLOW_SIMD_PYTHON" -c 'import PIL' || { echo "PILLOW_SIMD_PYTHON=$PILLOW_SIMD_PYTHON cannot import PIL" >&2; exit 1; }
  tools+=(simd)
else
  echo "   (PILLOW_SIMD_PYTHON not set: no Pillow-SIMD)" >&2
fi
$PY -c 'import pyvips' 2>/dev/null && tools+=(vips) || echo "   (pyvips not installed: no vips)" >&2
tools+=(flowrun)

measure() {  # TOOL OP → "wall-seconds cpu-seconds" (CPU: user + system, children included) for the corpus
  local out=$WORK/out-ops/$1
  rm -rf "$out"
  local command
  case $1 in
    flowrun)
      command=("$FLOWRUN" bench/image/ops.yaml --quiet --no-progress --no-cache --target "save-$2"
        --param corpus="$CORPUS" --param outDir="$out" --param logo="$LOGO") ;;
    simd) command=("$PILLOW_SIMD_PYTHON" bench/image/ops_baseline.py pillow "$2" "$CORPUS" "$out/$2" "$LOGO" --procs 2) ;;
    *) command=("$PY" bench/image/ops_baseline.py "$1" "$2" "$CORPUS" "$out/$2" "$LOGO" --procs 2) ;;
  esac
  /usr/bin/time -f '%e %U %S' -o "$WORK/time" "${command[@]}" >/dev/null
  awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/time"
}

declare -A walls cpus
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for ((round = 1; round <= ROUNDS; round++)); do
  echo "== round $round" >&2
  for op in "${OPS[@]}"; do
    for tool in "${tools[@]}"; do
      read -r wall cpu < <(measure "$tool" "$op")
      walls[$op,$tool]+="$wall "
      cpus[$op,$tool]+="$cpu "
    done
  done
done

load_after=$(cut -d' ' -f1-3 /proc/loadavg)
printf '\n%s photos, %s rounds; load average (1, 5, 15 min) %s before, %s after\n' "$N" "$ROUNDS" "$load_before" \
  "$load_after"
printf '%-10s' "photos/s"
for tool in "${tools[@]}"; do printf '%10s' "$tool"; done
printf '%19s %14s' "flowrun/fastest" "CPU ms/photo"
for tool in "${tools[@]}"; do printf '%9s' "$tool"; done
printf '%17s\n' "lowest/flowrun"
for op in "${OPS[@]}"; do
  printf '%-10s' "$op"
  best=0
  for tool in "${tools[@]}"; do
    rate=$(tr ' ' '\n' <<<"${walls[$op,$tool]}" | grep . | median | awk -v n="$N" '{ printf "%.1f", n / $1 }')
    printf '%10s' "$rate"
    if [ "$tool" != flowrun ]; then best=$(awk -v a="$best" -v b="$rate" 'BEGIN { print (b > a) ? b : a }'); fi
    last=$rate
  done
  awk -v f="$last" -v b="$best" 'BEGIN { printf "%18.2fx %14s", f / b, "" }'
  lowest=0
  for tool in "${tools[@]}"; do
    ms=$(tr ' ' '\n' <<<"${cpus[$op,$tool]}" | grep . | median | awk -v n="$N" '{ printf "%.1f", 1000 * $1 / n }')
    printf '%9s' "$ms"
    if [ "$tool" != flowrun ]; then lowest=$(awk -v a="$lowest" -v b="$ms" 'BEGIN { print (a == 0 || b < a) ? b : a }'); fi
    last=$ms
  done
  awk -v f="$last" -v b="$lowest" 'BEGIN { printf "%16.2fx\n", b / f }'
done
