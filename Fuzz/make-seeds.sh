#!/usr/bin/env bash
# Generates the small image seeds in seeds/decoders/ with ImageMagick (run once; the output is committed).
# Small on purpose: libFuzzer mutates small inputs far faster, and every codec path is reached at 24x16.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/seeds/decoders"
src="$here/../examples/photos/sunset.jpg"
mkdir -p "$out"
small=(-resize 24x16! -strip)
convert "$src" "${small[@]}" -quality 80 "$out/baseline.jpg"
convert "$src" "${small[@]}" -quality 80 -interlace JPEG "$out/progressive.jpg"
convert "$src" "${small[@]}" -colorspace Gray -quality 80 "$out/gray.jpg"
convert "$src" "${small[@]}" -colorspace CMYK -quality 80 "$out/cmyk.jpg"
convert "$src" "${small[@]}" -sampling-factor 4:4:4 -quality 95 "$out/444.jpg"
convert "$src" "${small[@]}" -sampling-factor 4:2:2 -quality 50 "$out/422.jpg"
convert "$src" -resize 17x9! -strip -quality 70 "$out/odd-size.jpg"
convert "$src" -resize 64x48! -strip -quality 60 "$out/64x48.jpg"
# EXIF orientations 2-8, big- and little-endian TIFF: an APP1 segment spliced in after SOI.
python3 - "$out/baseline.jpg" "$out" <<'PY'
import struct, sys
jpeg = open(sys.argv[1], "rb").read()
for o in range(2, 9):
    for order, name in ((b"MM", "be"), (b"II", "le")):
        e = ">" if order == b"MM" else "<"
        tiff = order + struct.pack(e + "HI", 42, 8) + struct.pack(e + "H", 1)
        tiff += struct.pack(e + "HHIHH", 0x0112, 3, 1, o, 0) + struct.pack(e + "I", 0)
        body = b"Exif\0\0" + tiff
        app1 = b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
        open(f"{sys.argv[2]}/exif-{o}-{name}.jpg", "wb").write(jpeg[:2] + app1 + jpeg[2:])
PY
convert "$src" "${small[@]}" -type Palette PNG8:"$out/palette.png"
convert "$src" "${small[@]}" -alpha set -channel A -evaluate set 50% +channel -type PaletteAlpha PNG8:"$out/palette-trns.png"
convert "$src" "${small[@]}" -colorspace Gray PNG8:"$out/gray8.png"
convert "$src" "${small[@]}" -colorspace Gray -depth 16 PNG48:"$out/gray16.png" 2>/dev/null || true
convert "$src" "${small[@]}" -colorspace Gray -alpha set PNG:"$out/gray-alpha.png"
convert "$src" "${small[@]}" PNG24:"$out/rgb.png"
convert "$src" "${small[@]}" -alpha set PNG32:"$out/rgba.png"
convert "$src" "${small[@]}" -depth 16 PNG48:"$out/rgb16.png"
convert "$src" "${small[@]}" -alpha set -depth 16 PNG64:"$out/rgba16.png"
convert "$src" "${small[@]}" -interlace PNG PNG24:"$out/interlaced.png"
convert "$src" "${small[@]}" -monochrome PNG:"$out/mono.png"
convert "$src" "${small[@]}" -gamma 2.2 -define png:include-chunk=gAMA PNG24:"$out/gamma.png"
ls -la "$out" | tail -n +2
