#!/usr/bin/env bash
# Peak RSS of the gallery job at 100 and 1,000 photos: memory must stay flat as the number of items grows
# (outputs are released as soon as their consumers finish; admission control drains each item's pipeline
# before starting new ones).
#
#   bench/gallery/run.sh                 # SIZES="100 1000" by default
#   SIZES="100 1000 3000" bench/gallery/run.sh
#
# The corpus is ../shared/photos repeated round-robin (shared/bench/make-corpus.sh with FROM_PHOTOS; without
# vips, which make-corpus.sh insists on, the same round-robin copy is made here, as bench/image/run.sh does).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
shared="${SHARED:-$root/../shared}"
sizes="${SIZES:-100 1000}"

cd "$root"
swift build -c release --product flowrun >&2
work="$(mktemp -d "${TMPDIR:-/tmp}/flowrun-gallery.XXXXXX")"
trap 'rm -rf "$work"' EXIT

printf '%-8s %-10s %-12s %s\n' photos seconds "peak RSS" "photos/s"
for n in $sizes; do
    if ! FROM_PHOTOS="$shared/photos" "$shared/bench/make-corpus.sh" "$work/corpus-$n" "$n" >/dev/null 2>"$work/make-corpus.log"; then
        echo "(make-corpus.sh failed: $(tail -1 "$work/make-corpus.log"); copying round-robin instead)" >&2
        mkdir -p "$work/corpus-$n"
        photos=("$shared"/photos/*.jpg)
        for ((i = 0; i < n; i++)); do
            cp "${photos[i % ${#photos[@]}]}" "$(printf '%s/img%04d.jpg' "$work/corpus-$n" "$i")"
        done
    fi
    rm -rf "$work/out"
    /usr/bin/time -f '%e %M' -o "$work/time" .build/release/flowrun "$here/gallery-bench.yaml" --no-progress --quiet \
        --param corpus="$work/corpus-$n" --param outDir="$work/out" >/dev/null
    read -r seconds kb <"$work/time"
    written=$(find "$work/out" -name '*.jpg' | wc -l)
    [ "$written" -eq "$n" ] || { echo "error: $written of $n thumbnails written" >&2; exit 1; }
    printf '%-8s %-10s %-12s %s\n' "$n" "$seconds" "$((kb / 1024)) MB" "$(awk -v n="$n" -v s="$seconds" 'BEGIN { printf "%.1f", n / s }')"
done
