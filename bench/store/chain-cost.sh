#!/usr/bin/env bash
# What the store costs a graph of trivial nodes: a 20,000-node chain, cold, with a fresh store and with
# --no-cache, alternated round by round (the machine drifts by ±25%), as CPU time (user + system) and wall time.
#
#   bench/store/chain-cost.sh [ROUNDS] [NODES] [TASK]   # 11 rounds of 20,000 `noop` nodes by default
#
# TASK is the body of each node's flow mapping before `dependsOn`: `noop` (kept out of the store) by default;
# `'sleep, duration: 0ms'` measures nodes the store keeps (a key and a journal record each).
#
# Prints each round's ratio and the medians; the store's cost per node is (store − no-cache) / NODES.
set -euo pipefail
ROUNDS=${1:-11}
NODES=${2:-20000}
TASK=${3:-noop}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-chain-cost.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
build_flowrun

python3 - "$WORK/chain.yaml" "$NODES" "$TASK" <<'PY'
import sys
count, task = int(sys.argv[2]), sys.argv[3]
lines = ["version: 1", f"name: chain-{count}", "tasks:", f"  t0: {{ type: {task} }}"]
lines += [f"  t{i}: {{ type: {task}, dependsOn: t{i - 1} }}" for i in range(1, count)]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY

measure() {  # flowrun arguments → "cpu wall" seconds of the whole process
  /usr/bin/time -f '%U %S %e' -o "$WORK/time" "$FLOWRUN" "$WORK/chain.yaml" --no-progress --quiet "$@" \
    >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
  awk '{ printf "%.3f %.3f\n", $1 + $2, $3 }' "$WORK/time"
}


: >"$WORK/store"; : >"$WORK/nocache"; : >"$WORK/ratios"
for ((round = 1; round <= ROUNDS; round++)); do
  rm -rf "$WORK/state"
  if ((round % 2)); then  # alternate which goes first, too
    with=$(measure --state-dir "$WORK/state"); without=$(measure --no-cache)
  else
    without=$(measure --no-cache); rm -rf "$WORK/state"; with=$(measure --state-dir "$WORK/state")
  fi
  echo "$with" >>"$WORK/store"; echo "$without" >>"$WORK/nocache"
  ratio=$(awk -v a="${with%% *}" -v b="${without%% *}" 'BEGIN { printf "%.3f", a / b }')
  echo "$ratio" >>"$WORK/ratios"
  echo "round $round: store cpu ${with%% *} s wall ${with##* } s | --no-cache cpu ${without%% *} s wall ${without##* } s | cpu ratio $ratio"
done
cpu_with=$(cut -d' ' -f1 <"$WORK/store" | median); cpu_without=$(cut -d' ' -f1 <"$WORK/nocache" | median)
wall_with=$(cut -d' ' -f2 <"$WORK/store" | median); wall_without=$(cut -d' ' -f2 <"$WORK/nocache" | median)
echo "median of $ROUNDS rounds, $NODES nodes of $TASK: cpu store $cpu_with s, --no-cache $cpu_without s" \
  "(median of per-round ratios $(median <"$WORK/ratios"); $(awk -v a="$cpu_with" -v b="$cpu_without" -v n="$NODES" \
  'BEGIN { printf "%.2f", (a - b) / n * 1e6 }') µs a node); wall store $wall_with s, --no-cache $wall_without s"
