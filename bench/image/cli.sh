#!/usr/bin/env bash
# bench/image/cli.sh — the image pipeline through the real `flowrun` binary, against Pillow, alternating.
#
# Usage:  bench/image/cli.sh [N] [ROUNDS]        (defaults: 200 photos, 3 rounds)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-bench),
#   PILLOW_SIMD_PYTHON (a venv's python with Pillow-SIMD, the fastest tool for this job: ../shared/BENCHMARKS.md says
#   how to build it): adds Pillow-SIMD as a baseline (`simd`) and, each round, Pillow-SIMD with `--draft` (its
#   shrink-on-load), the optimised run's own anchor (column `optimised/draft`, photos/s).
#
# Each round runs the baselines that are installed — Pillow (2 processes), libvips through pyvips (tuned, 2
# processes), ImageMagick `mogrify` (2 at a time) — then `flowrun --no-optimize` (literal) and `flowrun`
# (shrink-on-load, colour after resize) on bench/image/sepia-thumbnails-bench.yaml; photos/s include process
# start, workflow loading, reading and writing files. Ratios are per round, against that round's fastest
# baseline: of photos/s (wall time), and of CPU time (user + system, children included) against the baseline that
# used the least, the steadier figure on a shared machine. Fidelity, per round: the same job on the distinct photos, literal and optimised, written as PNG so that
# pixels are compared rather than two JPEG encodings of them (bench/image/fidelity.py, Pillow): the lowest PSNR in
# dB over the photos and the largest channel difference anywhere. Then peak RSS of the optimised run at 100 and
# 1,000 photos (flat: outputs are released as soon as they are consumed). pyvips: `pip install pyvips` with
# Debian's libvips42; ImageMagick: Debian's imagemagick. See ../shared/bench/ for the baseline scripts.
set -euo pipefail
N=${1:-200}
ROUNDS=${2:-3}
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm/flowrun-bench || echo /tmp/flowrun-bench)}
mkdir -p "$WORK"
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun

rate() {  # N SECONDS → photos/s
  awk -v n="$1" -v s="$2" 'BEGIN { printf "%.1f", n / s }'
}

timed() {  # command... → "seconds peakKB cpuSeconds"
  /usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  awk '{ printf "%s %s %.2f\n", $1, $2, $3 + $4 }' "$WORK/time"
}

flowrun_run() {  # CORPUS OUT [flags] → "seconds peakKB cpuSeconds"
  local corpus=$1 out=$2; shift 2
  rm -rf "$out"
  timed "$FLOWRUN" "${JOB:-bench/image/sepia-thumbnails-bench.yaml}" --quiet --no-progress \
    --param corpus="$corpus" --param outDir="$out" "$@"
}

# The same job writing PNG, for the fidelity pass (pixels, not two JPEG encodings of them): without `quality`, which
# `write` rejects for PNG.
PNG_JOB=$WORK/sepia-thumbnails-png.yaml
sed 's/, quality: 85//' bench/image/sepia-thumbnails-bench.yaml >"$PNG_JOB"
if grep -q 'quality:' "$PNG_JOB"; then echo "cli.sh: could not take quality out of the job for PNG" >&2; exit 1; fi

fidelity() {  # → "minPSNR maxDiff" of optimised against literal output (PNG), over the distinct photos
  local out=$WORK/fidelity
  JOB=$PNG_JOB flowrun_run "$SHARED/photos" "$out/literal" --no-optimize --param ext=png >/dev/null
  JOB=$PNG_JOB flowrun_run "$SHARED/photos" "$out/optimised" --param ext=png >/dev/null
  /usr/bin/python3 "$ROOT/bench/image/fidelity.py" "$out/literal" "$out/optimised" | awk '{ print $1, $3 }'
}

# The baselines of ../shared/BENCHMARKS.md that are installed here, each as "name command…" run on CORPUS OUT.
baselines=(pillow)
[ -n "${PILLOW_SIMD_PYTHON:-}" ] && baselines+=(simd)
/usr/bin/python3 -c 'import pyvips' 2>/dev/null && baselines+=(vips)
mogrify -version 2>/dev/null | grep -q ImageMagick && baselines+=(magick)

baseline_run() {  # NAME CORPUS → "seconds peakKB cpuSeconds"
  local out=$WORK/out-$1
  rm -rf "$out"; mkdir -p "$out"
  case $1 in
    pillow) timed /usr/bin/python3 "$SHARED/bench/pipeline_pillow.py" --procs 2 "$2" "$out" ;;
    simd) timed "$PILLOW_SIMD_PYTHON" "$SHARED/bench/pipeline_pillow.py" --procs 2 "$2" "$out" ;;
    simd-draft) timed "$PILLOW_SIMD_PYTHON" "$SHARED/bench/pipeline_pillow.py" --procs 2 --draft "$2" "$out" ;;
    vips) timed /usr/bin/python3 "$SHARED/bench/pipeline_pyvips.py" --procs 2 --tuned "$2" "$out" ;;
    # ImageMagick: mogrify, two processes over halves of the corpus (its fastest form in BENCHMARKS.md).
    magick) timed bash -c '
      files=("$1"/*.jpg); half=$(( (${#files[@]} + 1) / 2 ))
      job() { mogrify -path "$2" -color-matrix "0.5144 0.6152 0.1512 0.2792 0.7488 0.1344 0.2176 0.4272 0.3048" \
        -filter Lanczos -resize 30% -quality 85 -sampling-factor 2x2 "${@:3}"; }
      job "$1" "$2" "${files[@]:0:half}" & first=$!
      job "$1" "$2" "${files[@]:half}" && wait "$first"' _ "$2" "$out" ;;
  esac
}

CORPUS=$(corpus "$N")
echo "corpus: $N photos ($CORPUS); baselines: ${baselines[*]}"
header=$(printf '%-6s' round; for b in "${baselines[@]}"; do printf ' %8s' "$b"; done
  printf ' %9s %9s %13s %13s %8s %8s %8s %8s' literal optimised literal/best optimised/best "cpu lit" "cpu opt" \
    "PSNR dB" "max diff"
  [ -n "${PILLOW_SIMD_PYTHON:-}" ] && printf ' %10s %15s' simd-draft optimised/draft
  printf '  %s' "load (1, 5, 15 min)")
echo "$header"
for ((r = 1; r <= ROUNDS; r++)); do
  line=$(printf '%-6s' "$r")
  best=0
  bestcpu=0
  for b in "${baselines[@]}"; do
    read -r bs _ bcpu < <(baseline_run "$b" "$CORPUS")
    rate_b=$(rate "$N" "$bs")
    line+=$(printf ' %8s' "$rate_b")
    best=$(awk -v a="$best" -v b="$rate_b" 'BEGIN { print (b > a ? b : a) }')
    bestcpu=$(awk -v a="$bestcpu" -v b="$bcpu" 'BEGIN { print (a == 0 || b < a ? b : a) }')
  done
  read -r ls _ lcpu < <(flowrun_run "$CORPUS" "$WORK/out-literal" --no-optimize)
  read -r os _ ocpu < <(flowrun_run "$CORPUS" "$WORK/out-optimised")
  l=$(rate "$N" "$ls"); o=$(rate "$N" "$os")
  read -r psnr maxdiff < <(fidelity)
  line+=$(awk -v l="$l" -v o="$o" -v b="$best" -v c="$bestcpu" -v lc="$lcpu" -v oc="$ocpu" -v p="$psnr" \
    -v m="$maxdiff" 'BEGIN { printf " %9s %9s %12.2fx %12.2fx %7.2fx %7.2fx %8s %8s", l, o, l / b, o / b, c / lc, c / oc, p, m }')
  if [ -n "${PILLOW_SIMD_PYTHON:-}" ]; then
    read -r ds _ _ < <(baseline_run simd-draft "$CORPUS")
    line+=$(awk -v n="$N" -v d="$ds" -v o="$o" 'BEGIN { printf " %10.1f %14.2fx", n / d, o / (n / d) }')
  fi
  line+="  $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "$line"
done
echo "(best = the fastest baseline of the same round; photos/s include process start and file I/O; cpu = CPU time of"
echo " the baseline that used the least, over flowrun's;"
echo " PSNR = the lowest over the distinct photos of optimised vs literal pixels, max diff = the largest channel difference)"
echo "peak RSS, optimised run:"
for n in 100 1000; do
  read -r s kb _ < <(flowrun_run "$(corpus "$n")" "$WORK/out-rss")
  printf '  %5d photos: %4d MB (%s photos/s)\n' "$n" "$((kb / 1024))" "$(rate "$n" "$s")"
done
