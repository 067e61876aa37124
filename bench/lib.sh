# bench/lib.sh — what the benchmark scripts share; each sources it after setting WORK (its scratch folder).
#
#   ROOT, SHARED     the repository and ../shared beside it (SHARED may be set by the caller)
#   build_flowrun    builds the release flowrun and sets FLOWRUN (kept if the caller set it)
#   corpus N         prints a folder of N photos, round-robin copies of $SHARED/photos, made once in $WORK
#   median           the median of the numbers on stdin, one per line
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
