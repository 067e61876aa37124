#!/usr/bin/env bash
# `--watch` beside go-task's `--watch` on the same folder of N small files (200 by default): each tool copies the
# folder's files into its own out/ folder and keeps watching. flowrun runs twice: with its default settle (200 ms)
# and with `--watch-settle 100ms`, go-task's default interval. Measured per tool, one after the other:
#   idle CPU   CPU time (user + system, the watcher and its children) over 10 s with nothing changing
#   reaction   from a new file's write until its copy exists, median of R new files (5 by default), one every 2 s
# flowrun runs `fetch → write` per file through its store (only the new file's chain runs); go-task runs
# `cp -u in/*.txt out/` (its closest to "only what changed": cp skips files not newer than their copy).
# go-task comes from PyPI: `pip install go-task-bin` (or set TASK to its binary).
#
#   bench/watch/latency.sh [N] [R]
set -euo pipefail
N=${1:-200}
ROUNDS=${2:-5}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-watch-bench.XXXXXX")
source "$(dirname "$0")/../lib.sh"
[ -n "${FLOWRUN:-}" ] || build_flowrun
FLOWRUN=$(realpath "$FLOWRUN")
TASK=${TASK:-$(command -v task || true)}
[ -n "$TASK" ] || { echo "go-task not found: pip install go-task-bin, or set TASK" >&2; exit 1; }
WATCHER=
trap '[ -n "$WATCHER" ] && kill "$WATCHER" 2>/dev/null; rm -rf "$WORK"' EXIT

TOOLS=(flowrun flowrun-100ms go-task)
for tool in "${TOOLS[@]}"; do
  mkdir -p "$WORK/$tool/in"
  for ((i = 0; i < N; i++)); do printf 'item %d\n' "$i" >"$(printf '%s/%s/in/f%04d.txt' "$WORK" "$tool" "$i")"; done
done
for tool in flowrun flowrun-100ms; do
  cat >"$WORK/$tool/wf.yaml" <<'YAML'
version: 1
name: watch-bench
tasks:
  read: { type: fetch, forEach: { glob: "in/*.txt" }, url: "${item}" }
  save: { type: write, path: "out/${item.name}", dependsOn: read }
YAML
done
cat >"$WORK/go-task/Taskfile.yml" <<'YAML'
version: '3'
tasks:
  copy:
    sources: ['in/*.txt']
    cmds:
      - mkdir -p out && cp -u in/*.txt out/
YAML

cpu_ticks() {  # the CPU ticks of a process and its children so far (utime, stime, cutime, cstime of /proc/PID/stat)
  awk '{ sub(/^.*\) /, ""); print $12 + $13 + $14 + $15 }' "/proc/$1/stat"
}

wait_for() {  # path, seconds → waits until the file exists
  python3 - "$1" "$2" <<'PY'
import os, sys, time
path, limit = sys.argv[1], float(sys.argv[2])
end = time.monotonic() + limit
while not os.path.exists(path):
    if time.monotonic() > end: sys.exit(f"timed out waiting for {path}")
    time.sleep(0.002)
PY
}

reaction() {  # folder, name → seconds from writing in/NAME until out/NAME exists
  python3 - "$1" "$2" <<'PY'
import os, sys, time
folder, name = sys.argv[1], sys.argv[2]
start = time.monotonic()
with open(f"{folder}/in/{name}", "w") as f: f.write(f"new {name}\n")
target = f"{folder}/out/{name}"
while not os.path.exists(target):
    if time.monotonic() - start > 60: sys.exit(f"no copy of {name} after 60 s")
    time.sleep(0.001)
print(f"{time.monotonic() - start:.3f}")
PY
}

hz=$(getconf CLK_TCK)
for tool in "${TOOLS[@]}"; do
  cd "$WORK/$tool"
  case $tool in
    flowrun) "$FLOWRUN" wf.yaml --watch --no-progress --quiet >watch.log 2>&1 & ;;
    flowrun-100ms) "$FLOWRUN" wf.yaml --watch --watch-settle 100ms --no-progress --quiet >watch.log 2>&1 & ;;
    go-task) "$TASK" --watch copy >watch.log 2>&1 & ;;
  esac
  WATCHER=$!
  wait_for "$(printf 'out/f%04d.txt' $((N - 1)))" 120 || { cat watch.log >&2; exit 1; }
  sleep 2
  before=$(cpu_ticks "$WATCHER"); sleep 10; after=$(cpu_ticks "$WATCHER")
  idle=$(awk -v t=$((after - before)) -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }')
  times=()
  for ((r = 0; r < ROUNDS; r++)); do times+=("$(reaction "$WORK/$tool" "new$r.txt")"); sleep 2; done
  kill "$WATCHER"; wait "$WATCHER" 2>/dev/null || true; WATCHER=
  printf '%-13s idle CPU %s s in 10 s   reaction median %s s (%s)\n' "$tool" "$idle" \
    "$(printf '%s\n' "${times[@]}" | median)" "${times[*]}"
done
echo "files: $N; load average $(cut -d' ' -f1-3 /proc/loadavg)"
