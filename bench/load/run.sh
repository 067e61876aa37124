#!/usr/bin/env bash
# Times load + validate + plan of generated workflows of 10,000 and 20,000 tasks through the release
# `flowrun validate` binary: the median of 5 runs per size, and the 20k/10k ratio.
# Targets: 10k ≤ 0.3 s; 20k ≤ 2.2 × 10k.
#
#   bench/load/run.sh            # builds release, then measures
#   RUNS=9 SIZES="5000 10000 20000" bench/load/run.sh
#
# Until `flowrun validate` exists, measure in-process:
#   FLOWRUN_BENCH=1 swift test -c release --filter LoadBenchmark
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${RUNS:-5}"
sizes="${SIZES:-10000 20000}"

cd "$root"
swift build -c release --product flowrun >&2
binary="$root/.build/release/flowrun"
if [[ ! -x "$binary" ]]; then
    echo "error: $binary was not built" >&2
    exit 1
fi
work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Make sure `validate` really validates (a placeholder binary exits 0 for anything): a cycle must exit 2.
printf 'version: 1\ntasks:\n  a: { type: noop, dependsOn: [b] }\n  b: { type: noop, dependsOn: [a] }\n' >"$work/cycle.yaml"
status=0
"$binary" validate "$work/cycle.yaml" >/dev/null 2>&1 || status=$?
if [[ $status -ne 2 ]]; then
    echo "error: '$binary validate' does not reject an invalid workflow (exit $status, expected 2);" >&2
    echo "the command is not available yet. Measure in-process instead:" >&2
    echo "  FLOWRUN_BENCH=1 swift test -c release --filter LoadBenchmark" >&2
    exit 1
fi

# Prints the median wall time, in seconds, of $runs runs of `flowrun validate FILE` (after one warm-up).
median() {
    local file="$1" times=() start end
    if ! "$binary" validate "$file" >/dev/null; then
        echo "error: $file does not validate" >&2
        exit 1
    fi
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s%N)
        "$binary" validate "$file" >/dev/null
        end=$(date +%s%N)
        times+=($(((end - start) / 1000)))
    done
    printf '%s\n' "${times[@]}" | sort -n | awk -v n="$runs" '{ t[NR] = $1 } END { printf "%.3f\n", t[int((n + 1) / 2)] / 1e6 }'
}

declare -A result
for size in $sizes; do
    file="$work/bench-$size.yaml"
    python3 "$here/generate.py" "$size" "$file"
    result[$size]="$(median "$file")"
    printf '%6d tasks: %s s (median of %d)\n' "$size" "${result[$size]}" "$runs"
done

if [[ -n "${result[10000]:-}" && -n "${result[20000]:-}" ]]; then
    awk -v a="${result[10000]}" -v b="${result[20000]}" \
        'BEGIN { r = b / a; printf "20k/10k ratio: %.2f (target ≤ 2.2); 10k %s (target ≤ 0.3 s)\n", r, (a <= 0.3 ? "ok" : "SLOW") }'
fi
