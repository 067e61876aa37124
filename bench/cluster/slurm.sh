#!/usr/bin/env bash
# bench/cluster/slurm.sh — a sharded run on a local single-node Slurm cluster against one local run, alternating.
#
# Usage:  bench/cluster/slurm.sh [N] [SHARDS] [ROUNDS]     (defaults: 200 photos, 4 shards, 2 rounds; needs root)
# Environment: SHARED (default ../shared beside the repository), WORK (default /dev/shm/flowrun-cluster-bench).
#
# The job is bench/image/sepia-thumbnails-bench.yaml over ../shared/photos repeated to N. Each round runs it once
# locally, then through `flowrun export slurm --shards SHARDS` on the cluster scripts/slurm-local.sh starts, and
# checks the outputs are byte-identical. Per shard it reports the overhead Slurm adds: from submitting to the
# shard's first node starting (scheduling, job start, flowrun start and planning), and from its last node ending
# to the job leaving the queue (squeue polled every 50 ms). The cluster has the same 2 cores as the local run, so
# the wall times compare the overhead, not a speed-up.
set -euo pipefail
N=${1:-200}
SHARDS=${2:-4}
ROUNDS=${3:-2}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}
WORK=${WORK:-$([ -w /dev/shm ] && echo /dev/shm/flowrun-cluster-bench || echo /tmp/flowrun-cluster-bench)}
mkdir -p "$WORK"
cd "$ROOT"
swift build -c release --product flowrun >&2
BINARY=$ROOT/.build/release/flowrun
# The jobs run flowrun through a wrapper that logs when the job script starts and ends (the submit script lets
# FLOWRUN override the binary); the reports' spans say when the first node started and the last one ended.
cat >"$WORK/timed-flowrun" <<WRAP
#!/usr/bin/env bash
echo "\${SLURM_ARRAY_TASK_ID:-gather} start \$(date +%s.%N)" >>"$WORK/times"
"$BINARY" "\$@"; status=\$?
echo "\${SLURM_ARRAY_TASK_ID:-gather} end \$(date +%s.%N)" >>"$WORK/times"
exit \$status
WRAP
chmod +x "$WORK/timed-flowrun"

corpus=$WORK/corpus-$N
if [ "$(ls "$corpus" 2>/dev/null | wc -l)" != "$N" ]; then
    rm -rf "$corpus"; mkdir -p "$corpus"
    photos=("$SHARED"/photos/*.jpg)
    for ((i = 0; i < N; i++)); do cp "${photos[i % ${#photos[@]}]}" "$(printf '%s/img%04d.jpg' "$corpus" "$i")"; done
fi
mkdir -p "$WORK/job"
cp bench/image/sepia-thumbnails-bench.yaml "$WORK/job/thumbs.yaml"

scripts/slurm-local.sh start "$WORK/slurm" >&2
trap 'scripts/slurm-local.sh stop "$WORK/slurm"' EXIT

now() { date +%s.%N; }

for ((round = 1; round <= ROUNDS; round++)); do
    rm -rf "$WORK/out-local" "$WORK/out-slurm" "$WORK/job/.flowrun"
    start=$(now)
    "$BINARY" "$WORK/job/thumbs.yaml" --param corpus="$corpus" --param outDir="$WORK/out-local" --quiet --no-progress
    local_seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')

    "$BINARY" export slurm "$WORK/job/thumbs.yaml" --shards "$SHARDS" --param corpus="$corpus" \
        --param outDir="$WORK/out-slurm" --partition debug 2>/dev/null >"$WORK/submit.sh"
    submitted=$(now)
    : >"$WORK/times"
    ids=$(FLOWRUN="$WORK/timed-flowrun" bash "$WORK/submit.sh")
    array=$(awk '/^shards: job/ { print $3 }' <<<"$ids")
    gather=$(awk '/^gather: job/ { print $3 }' <<<"$ids")
    : >"$WORK/gone"
    declare -A seen=()
    deadline=$(( $(date +%s) + 600 ))
    while :; do
        listed=$(squeue -h -r -o '%i' 2>/dev/null || true)
        t=$(now)
        for ((k = 1; k <= SHARDS; k++)); do
            id="${array}_$k"
            if [[ -z ${seen[$id]:-} ]] && ! grep -qx "$id" <<<"$listed"; then
                # Pending array tasks may be listed as ARRAY_[k-N]; a task is gone once it ran and left.
                if [[ -e "$WORK/job/.flowrun/shards/thumbs.yaml.shard-$k-of-$SHARDS.json" ]]; then
                    seen[$id]=$t; echo "$k $t" >>"$WORK/gone"
                fi
            fi
        done
        if ! grep -qx "$gather" <<<"$listed" && [[ ${#seen[@]} == "$SHARDS" ]]; then break; fi
        (( $(date +%s) < deadline )) || { echo "jobs did not finish in 600 s" >&2; exit 1; }
        sleep 0.05
    done
    finished=$(now)
    unset seen
    cluster_seconds=$(awk -v a="$submitted" -v b="$finished" 'BEGIN { printf "%.2f", b - a }')
    if diff -r "$WORK/out-local" "$WORK/out-slurm" >/dev/null; then same="identical"; else same="DIFFERENT"; fi
    count=$(ls "$WORK/out-slurm" | wc -l)
    echo "round $round: local ${local_seconds}s; slurm ${SHARDS} shards + gather ${cluster_seconds}s (×$(awk -v a="$cluster_seconds" -v b="$local_seconds" 'BEGIN { printf "%.2f", a / b }')); $count outputs $same"
    python3 - "$WORK/job/.flowrun/shards" "$SHARDS" "$submitted" "$WORK/gone" "$WORK/times" <<'PY'
import json, sys
folder, shards, submitted, gone, times = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
left = {int(k): float(t) for k, t in (line.split() for line in open(gone))}
marks = {(who, what): float(t) for who, what, t in (line.split() for line in open(times))}
overheads = []
free_since = submitted  # when the node last became free: jobs ask for all its CPUs, so they run one at a time
for k in range(1, shards + 1):
    report = json.load(open(f"{folder}/thumbs.yaml.shard-{k}-of-{shards}.json"))
    spans = [s for node in report["nodes"] for s in node["spans"]]
    nodes = max(s["end"] for s in spans) - min(s["start"] for s in spans)
    began, ended = marks[(str(k), "start")], marks[(str(k), "end")]
    scheduling = began - max(submitted, free_since)  # from submit, or from the node freeing, to the job starting
    around = (ended - began) - nodes  # flowrun start, planning, report and exit around the nodes
    after = left[k] - ended  # the job script's end to the job leaving the queue
    free_since = left[k]
    overheads.append(scheduling + around + after)
    print(f"  shard {k}/{shards}: {len(report['nodes'])} nodes in {nodes:.2f}s; to start {scheduling:.2f}s "
          f"(after submit or the node freeing), flowrun around its nodes {around:.2f}s, job end {after:.2f}s")
gather_start = marks[("gather", "start")] - free_since
print(f"  overhead per shard: {min(overheads):.2f}–{max(overheads):.2f}s; gather: starts {gather_start:.2f}s after "
      f"the last shard left, runs {marks[('gather', 'end')] - marks[('gather', 'start')]:.2f}s")
PY
done
