#!/usr/bin/env bash
# The AVIF effort table against WebP: N photos resized to 1600 px wide, each written as WebP (quality 80, its
# default effort) and as AVIF (quality 60) at every effort 0-9. Prints, per format and effort, the median encode
# time per image (the write nodes' spans in --report), the mean file size and the mean SSIM against the
# resized original (scikit-image, on the files decoded back by flowrun). The default AVIF effort is the largest
# whose time stays within 3x WebP's at an SSIM no worse.
#
#   bench/image/effort.sh [N]        (scikit-image and Pillow from PyPI)
set -euo pipefail
N=${1:-6}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/flowrun-effort-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
source "$(dirname "$0")/../lib.sh"
[ -n "${FLOWRUN:-}" ] || build_flowrun
PHOTOS=$(corpus "$N")

{
  cat <<YAML
version: 1
tasks:
  read: { type: fetch, forEach: { glob: "$PHOTOS/*.jpg" }, url: "\${item}" }
  decode: { type: decode, dependsOn: read }
  wide: { type: resize, width: 1600, dependsOn: decode }
  ref: { type: write, path: "ref/\${item.stem}.png", dependsOn: wide }
  webp: { type: write, path: "webp/\${item.stem}.webp", quality: 80, dependsOn: wide }
YAML
  for effort in 0 1 2 3 4 5 6 7 8 9; do
    echo "  avif$effort: { type: write, path: \"avif$effort/\${item.stem}.avif\", quality: 60, effort: $effort, dependsOn: wide }"
  done
} >"$WORK/encode.yaml"
# One encode at a time, so each node's duration is its own.
(cd "$WORK" && "$FLOWRUN" encode.yaml --no-cache --no-progress --quiet --max-concurrent 1 --report report.json)

# Decoded back to PNG by flowrun, for SSIM.
{
  echo "version: 1"
  echo "tasks:"
  for folder in webp avif0 avif1 avif2 avif3 avif4 avif5 avif6 avif7 avif8 avif9; do
    ext=$([ "$folder" = webp ] && echo webp || echo avif)
    echo "  r$folder: { type: fetch, forEach: { glob: \"$folder/*.$ext\" }, url: \"\${item}\" }"
    echo "  d$folder: { type: decode, dependsOn: r$folder }"
    echo "  w$folder: { type: write, path: \"back/$folder/\${item.stem}.png\", dependsOn: d$folder }"
  done
} >"$WORK/decode.yaml"
(cd "$WORK" && "$FLOWRUN" decode.yaml --no-cache --no-progress --quiet)

python3 - "$WORK" <<'PY'
import json, os, statistics, sys
import numpy as np
from PIL import Image
from skimage.metrics import structural_similarity
work = sys.argv[1]
report = json.load(open(f"{work}/report.json"))
durations = {}
for node in report["nodes"]:
    task = node["task"]
    if task.startswith(("webp", "avif")):
        durations.setdefault(task, []).append(sum(s["end"] - s["start"] for s in node["spans"]))
refs = sorted(os.listdir(f"{work}/ref"))
print(f"{'format':<8} {'ms/image':>9} {'KiB':>7} {'SSIM':>7}")
for task in ["webp"] + [f"avif{e}" for e in range(10)]:
    ext = "webp" if task == "webp" else "avif"
    sizes, scores = [], []
    for name in refs:
        stem = name[:-4]
        sizes.append(os.path.getsize(f"{work}/{task}/{stem}.{ext}") / 1024)
        a = np.asarray(Image.open(f"{work}/ref/{name}").convert("RGB"))
        b = np.asarray(Image.open(f"{work}/back/{task}/{stem}.png").convert("RGB"))
        scores.append(structural_similarity(a, b, channel_axis=2))
    ms = statistics.median(durations[task]) * 1000
    print(f"{task:<8} {ms:>9.0f} {statistics.mean(sizes):>7.1f} {statistics.mean(scores):>7.4f}")
PY
