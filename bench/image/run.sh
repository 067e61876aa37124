#!/usr/bin/env bash
# bench/image/run.sh — flowrun's image pipeline against Pillow on the shared photo corpus.
#
# Usage:  bench/image/run.sh [N] [ROUNDS]
#   N        corpus size (default 200): the 20 photos of ../shared/photos repeated round-robin
#   ROUNDS   how many times to alternate Pillow / flowrun literal / flowrun optimised (default 3)
# Environment:
#   SHARED=DIR   the shared folder (default: ../shared beside the repository)
#   WORK=DIR     scratch folder for the corpus and outputs (default: /dev/shm/flowrun-bench, else /tmp)
#
# The job (BENCHMARKS.md): decode → sepia 0.8 → resize ×0.3 Lanczos → JPEG q85 (4:2:0), 2 threads/processes.
# flowrun is measured without the CLI, through the real operations (DecodeOperation → SepiaOperation →
# ResizeOperation → WriteOperation), by the release-mode test `BenchmarkTests` in Tests/FlowImagingTests, which only
# runs with FLOWRUN_BENCH=1:
#   stages     ms per photo of each stage on one thread (decode full and 1/2, sepia, noir, resize, encode)
#   literal    photos/s and CPU ms/photo, no optimisation (full decode, sepia on every pixel, resize)
#   optimised  photos/s and CPU ms/photo with shrink-on-load and colour-after-resize (NodeContext.optimize)
#   quality    how far the optimised output is from the literal one (mean, max, share > 2 levels)
# Pillow runs $SHARED/bench/pipeline_pillow.py --procs 2 with /usr/bin/python3 (Debian's Pillow), or with
# PILLOW_SIMD_PYTHON when set (a venv with Pillow-SIMD, the faster anchor: ../shared/BENCHMARKS.md says how to build
# it), then also with --draft (its shrink-on-load), against which the optimised run is compared. The machine is shared
# and drifts by ±25 %, so runs alternate, ratios are taken per round, and the load average is printed with each; the
# CPU-time ratios (Pillow's processes, children included, against flowrun's process) are the steadier figure.
set -euo pipefail

N=${1:-200}
ROUNDS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
if [ -z "${WORK:-}" ]; then
  if [ -d /dev/shm ] && [ -w /dev/shm ]; then WORK=/dev/shm/flowrun-bench; else WORK=/tmp/flowrun-bench; fi
fi
CORPUS=$WORK/corpus
mkdir -p "$WORK"

cd "$ROOT"
echo "== building (release)" >&2
swift build -c release --build-tests -Xswiftc -enable-testing >/dev/null

echo "== corpus: $N files in $CORPUS" >&2
if ! FROM_PHOTOS="$SHARED/photos" "$SHARED/bench/make-corpus.sh" "$CORPUS" "$N" 2>"$WORK/make-corpus.log"; then
  # make-corpus.sh insists on `vips` even with FROM_PHOTOS; without it, do the same round-robin copy here.
  echo "   (make-corpus.sh failed: $(tail -1 "$WORK/make-corpus.log"); copying round-robin instead)" >&2
  mkdir -p "$CORPUS"
  rm -f "$CORPUS"/img[0-9][0-9][0-9].jpg
  photos=("$SHARED"/photos/*.jpg)
  for ((i = 0; i < N; i++)); do cp "${photos[i % ${#photos[@]}]}" "$(printf '%s/img%03d.jpg' "$CORPUS" "$i")"; done
fi

flowrun_bench() {  # MODE → prints the BENCH lines
  FLOWRUN_BENCH=1 FLOWRUN_BENCH_CORPUS="$CORPUS" FLOWRUN_BENCH_OUT="$WORK/out-$1" FLOWRUN_BENCH_MODE="$1" \
    swift test -c release --skip-build --filter FlowImagingTests.BenchmarkTests 2>&1 | grep '^BENCH' | sed 's/^BENCH //'
}

PILLOW=${PILLOW_SIMD_PYTHON:-/usr/bin/python3}
pillow_run() {  # [--draft] → "photos/s CPU-ms/photo" (CPU: user + system, children included)
  rm -rf "$WORK/out-pillow"
  /usr/bin/time -f '%e %U %S' -o "$WORK/time" "$PILLOW" "$SHARED/bench/pipeline_pillow.py" --procs 2 "$@" "$CORPUS" \
    "$WORK/out-pillow"
  awk -v n="$N" '{ printf "%.1f %.1f\n", n / $1, 1000 * ($2 + $3) / n }' "$WORK/time"
}
flowrun_run() {  # MODE → "photos/s CPU-ms/photo"
  flowrun_bench "$1" | awk '{ print $3, $5 }'
}

echo "== per-stage timings (one thread, first 20 photos)"
flowrun_bench stages

if [ -n "${PILLOW_SIMD_PYTHON:-}" ]; then anchor=simd; else anchor=pillow; fi
echo "== throughput, photos/s (2 threads / 2 processes), alternating; $anchor = $PILLOW"
echo "   then CPU ms/photo (user + system) and the ratios of $anchor's CPU time to flowrun's"
printf '%-6s %10s %10s %10s %10s %12s %12s %8s %8s %8s %8s %10s %10s  %s\n' round "$anchor" "$anchor-draft" literal \
  optimised literal/lit optimised/draft cpu "cpu-d" "cpu lit" "cpu opt" "cpu l/l" "cpu o/d" "load (1, 5, 15 min)"
for ((r = 1; r <= ROUNDS; r++)); do
  read -r p pc < <(pillow_run)
  read -r l lc < <(flowrun_run literal)
  read -r d dc < <(pillow_run --draft)
  read -r o oc < <(flowrun_run optimised)
  awk -v r="$r" -v p="$p" -v d="$d" -v l="$l" -v o="$o" -v pc="$pc" -v dc="$dc" -v lc="$lc" -v oc="$oc" \
    -v load="$(cut -d' ' -f1-3 /proc/loadavg)" 'BEGIN {
      printf "%-6s %10s %10s %10s %10s %11.2fx %11.2fx %8s %8s %8s %8s %9.2fx %9.2fx  %s\n", r, p, d, l, o, l / p, o / d,
        pc, dc, lc, oc, pc / lc, dc / oc, load }'
done

echo "== optimised vs literal output (first 20 photos)"
flowrun_bench quality
