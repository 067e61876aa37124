# bench/lib.sh — what the benchmark scripts share; each sources it after setting WORK (its scratch folder).
#
#   ROOT, SHARED     the repository and ../shared beside it (SHARED may be set by the caller)
#   build_flowrun    builds the release flowrun and sets FLOWRUN (kept if the caller set it)
#   corpus N         prints a folder of N photos, round-robin copies of $SHARED/photos, made once in $WORK
#   median           the median of the numbers on stdin, one per line
#   fetch_write_workflow DIR N NAME
#                    writes DIR/in/ with N one-line text files and DIR/wf.yaml, a workflow NAME copying each to out/
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SHARED=${SHARED:-$ROOT/../shared}

build_flowrun() {
  (cd "$ROOT" && swift build -c release --product flowrun >&2)
  FLOWRUN=${FLOWRUN:-$ROOT/.build/release/flowrun}
}

corpus() {
  local dir=$WORK/corpus-$1
  if [ "$(ls "$dir" 2>/dev/null | wc -l)" != "$1" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    local photos=("$SHARED"/photos/*.jpg)
    for ((i = 0; i < $1; i++)); do cp "${photos[i % ${#photos[@]}]}" "$(printf '%s/img%04d.jpg' "$dir" "$i")"; done
  fi
  echo "$dir"
}

median() {
  sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

fetch_write_workflow() {
  python3 - "$1" "$2" "$3" <<'PY'
import os, sys
work, count, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
os.makedirs(f"{work}/in")
for i in range(count):
    with open(f"{work}/in/f{i:06d}.txt", "w") as f:
        f.write(f"item {i}\n")
with open(f"{work}/wf.yaml", "w") as f:
    f.write(f"""version: 1
name: {name}
tasks:
  read: {{ type: fetch, forEach: {{ glob: "in/*.txt" }}, url: "${{item}}" }}
  save: {{ type: write, path: "out/${{item.stem}}.txt", dependsOn: read }}
""")
PY
}
