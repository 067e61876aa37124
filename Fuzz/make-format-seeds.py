#!/usr/bin/env python3
"""Generates the small HEIC, AVIF, TIFF and WebP seeds for the heif, tiff and decoders targets (run once; the output
is committed). Needs Pillow and pillow-heif (PyPI: `pip install pillow pillow-heif`, in a virtual environment), which
bundle libwebp, libtiff, libheif and x265; AVIF seeds are written by flowrun itself (libaom here), because
pillow-heif's wheels have no AV1 encoder.

    python3 Fuzz/make-format-seeds.py [path/to/flowrun]

Small on purpose (24x16 and a few odd sizes): libFuzzer mutates small inputs far faster, and every codec path is
reached at that size.
"""
import io
import os
import subprocess
import sys
import tempfile

from PIL import Image
import pillow_heif

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
source = Image.open(os.path.join(root, "examples/photos/sunset.jpg")).convert("RGB")
small = source.resize((24, 16))
odd = source.resize((17, 9))
alpha = small.copy()
alpha.putalpha(Image.linear_gradient("L").resize((24, 16)))
# A camera's EXIF with a GPS directory, so the seeds reach EXIF reading and stripping.
exif = Image.Exif()
exif[0x010F] = "FLOWCAM"
exif[0x0112] = 6
exif.get_ifd(0x8825)[2] = (43.0, 28.0, 48.84)


def save(folder, name, image, **options):
    os.makedirs(os.path.join(here, "seeds", folder), exist_ok=True)
    image.save(os.path.join(here, "seeds", folder, name), **options)


pillow_heif.register_heif_opener()
save("heif", "rgb.heic", small, quality=60)
save("heif", "alpha.heic", alpha, quality=60)
save("heif", "odd-size.heic", odd, quality=40)
save("heif", "exif.heic", small, quality=60, exif=exif.tobytes())
save("heif", "10-bit.heic", small, quality=60, save_to_12bit=False, chroma=444)

for name, image, options in [
    ("rgb.tif", small, {}),
    ("rgba.tif", alpha, {}),
    ("gray.tif", small.convert("L"), {}),
    ("mono.tif", small.convert("1"), {"compression": "group4"}),
    ("palette.tif", small.convert("P"), {}),
    ("cmyk.tif", small.convert("CMYK"), {}),
    ("gray16.tif", small.convert("I;16"), {}),
    ("lzw.tif", small, {"compression": "tiff_lzw"}),
    ("deflate.tif", alpha, {"compression": "tiff_adobe_deflate"}),
    ("packbits.tif", small, {"compression": "packbits"}),
    ("jpeg.tif", small, {"compression": "jpeg"}),
    ("odd-size.tif", odd, {}),
    ("exif.tif", small, {"exif": exif.tobytes()}),
]:
    save("tiff", name, image, **options)
# Big-endian and several pages (libtiff reads the first).
buffer = io.BytesIO()
small.save(buffer, "TIFF", big_endian=True)
open(os.path.join(here, "seeds/tiff/big-endian.tif"), "wb").write(buffer.getvalue())
small.save(os.path.join(here, "seeds/tiff/pages.tif"), save_all=True, append_images=[odd, alpha])

save("decoders", "lossy.webp", small, quality=60)
save("decoders", "lossy-alpha.webp", alpha, quality=60)
save("decoders", "lossless.webp", alpha, lossless=True)
save("decoders", "odd-size.webp", odd, quality=40)
save("decoders", "exif.webp", small, quality=60, exif=exif.tobytes())

# AVIF from flowrun: opaque and with alpha, at two qualities.
flowrun = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, ".build/debug/flowrun")
with tempfile.TemporaryDirectory() as work:
    small.save(os.path.join(work, "rgb.png"))
    alpha.save(os.path.join(work, "alpha.png"))
    odd.save(os.path.join(work, "odd.png"))
    out = os.path.join(here, "seeds", "heif")
    open(os.path.join(work, "flow.yaml"), "w").write(
        "version: 1\ntasks:\n"
        '  read: { type: fetch, forEach: [rgb.png, alpha.png, odd.png], url: "${item}" }\n'
        "  decode: { type: decode, dependsOn: read }\n"
        f'  low: {{ type: write, dependsOn: decode, path: "{out}/${{item.stem}}-q30.avif", quality: 30 }}\n'
        f'  high: {{ type: write, dependsOn: decode, path: "{out}/${{item.stem}}-q80.avif", quality: 80 }}\n')
    subprocess.run([flowrun, "flow.yaml", "--no-progress", "--quiet", "--no-cache"], cwd=work, check=True)
for folder in ("heif", "tiff", "decoders"):
    names = sorted(os.listdir(os.path.join(here, "seeds", folder)))
    print(folder, len(names), sum(os.path.getsize(os.path.join(here, "seeds", folder, n)) for n in names), "bytes")
