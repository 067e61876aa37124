#!/usr/bin/env python3
"""One image operation over a folder of JPEGs with Pillow or libvips (pyvips): decode → OP → JPEG q85.

Usage: ops_baseline.py pillow|vips OP CORPUS OUT LOGO [--procs 2] [--png]
       ops_baseline.py logo PATH      (makes the 300×120 semi-transparent watermark both benchmarks use)
With --png each output is written losslessly as STEM.png, for bench/image/ops_fidelity.sh to compare pixels.
The operations match bench/image/ops.yaml's: crop (1:1 centre), rotate90, rotate7 (7.5° onto black), flip
(horizontal), blur (σ 2), sharpen (σ 1, amount 1, threshold 0), overlay (LOGO at southeast, 24 px in, 60 %).
All three tools decode in full with libjpeg-turbo's defaults (islow IDCT, fancy upsampling) and encode q85 4:2:0,
baseline, without Huffman optimisation. Where the work differs by definition: vips' blur is given flowrun's mask
width (see below); Pillow's GaussianBlur is three box blurs (a cost independent of σ); vips' sharpen works on L* of
LabS with its own curve, not an RGB unsharp mask; vips reads the JPEG sequentially for crop, so on the 2 portrait
photos of 20 it stops decoding below the square.
"""
import multiprocessing
import os
import sys


def pillow(op, src, dst, logo):
    from PIL import Image, ImageFilter

    im = Image.open(src)
    im.load()
    if op == "crop":
        side = min(im.size)
        left, top = (im.width - side) // 2, (im.height - side) // 2
        im = im.crop((left, top, left + side, top + side))
    elif op == "rotate90":
        im = im.transpose(Image.Transpose.ROTATE_270)  # Pillow turns anticlockwise
    elif op == "rotate7":
        im = im.rotate(-7.5, resample=Image.Resampling.BILINEAR, expand=True, fillcolor=(0, 0, 0))
    elif op == "flip":
        im = im.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
    elif op == "blur":
        im = im.filter(ImageFilter.GaussianBlur(2))
    elif op == "sharpen":
        im = im.filter(ImageFilter.UnsharpMask(radius=1, percent=100, threshold=0))
    elif op == "overlay":
        mark = Image.open(logo).convert("RGBA")
        alpha = mark.getchannel("A").point(lambda a: round(a * 0.6))
        mark.putalpha(alpha)
        base = im.convert("RGBA")
        base.alpha_composite(mark, (base.width - mark.width - 24, base.height - mark.height - 24))
        im = base.convert("RGB")
    im.save(dst, **({} if dst.endswith(".png") else {"quality": 85}))


def vips(op, src, dst, logo):
    import pyvips

    im = pyvips.Image.new_from_file(src, access="sequential" if op in ("blur", "sharpen", "overlay", "crop") else "random")
    if op == "crop":
        side = min(im.width, im.height)
        im = im.crop((im.width - side) // 2, (im.height - side) // 2, side, side)
    elif op == "rotate90":
        im = im.rot90()
    elif op == "rotate7":
        im = im.rotate(7.5, interpolate=pyvips.Interpolate.new("bilinear"), background=[0, 0, 0])
    elif op == "flip":
        im = im.fliphor()
    elif op == "blur":
        # vips' default min_ampl (0.2) cuts the mask where exp(-x²/2σ²) < 0.2: 7 taps of integer weights
        # [6 12 18 20 18 12 6]/92 for σ 2 (an effective σ of 1.6), half the work of the Gaussian to ⌈3σ⌉ that
        # flowrun computes. 0.005 gives vips the same 13 taps, so both do the same work.
        im = im.gaussblur(2, min_ampl=0.005)
    elif op == "sharpen":
        im = im.sharpen(sigma=1)
    elif op == "overlay":
        mark = pyvips.Image.new_from_file(logo)
        mark = mark * [1, 1, 1, 0.6]
        im = im.composite2(mark, "over", x=im.width - mark.width - 24, y=im.height - mark.height - 24)
        im = im.flatten()
    im.write_to_file(dst, **({} if dst.endswith(".png") else {"Q": 85}))


def logo(path):
    from PIL import Image, ImageDraw

    im = Image.new("RGBA", (300, 120), (0, 0, 0, 0))
    draw = ImageDraw.Draw(im)
    draw.rounded_rectangle((0, 0, 299, 119), 24, fill=(255, 255, 255, 160))
    draw.text((40, 45), "flowrun watermark", fill=(20, 20, 20, 255))
    im.save(path)


def work(args):
    lib, op, src, dst, mark = args
    (pillow if lib == "pillow" else vips)(op, src, dst, mark)


def main():
    if sys.argv[1] == "logo":
        return logo(sys.argv[2])
    lib, op, corpus, out, mark = sys.argv[1:6]
    procs = int(sys.argv[sys.argv.index("--procs") + 1]) if "--procs" in sys.argv else 2
    if lib == "vips":
        os.environ["VIPS_CONCURRENCY"] = "1"
    os.makedirs(out, exist_ok=True)
    name = (lambda f: os.path.splitext(f)[0] + ".png") if "--png" in sys.argv else (lambda f: f)
    jobs = [(lib, op, os.path.join(corpus, f), os.path.join(out, name(f)), mark) for f in sorted(os.listdir(corpus))]
    with multiprocessing.Pool(procs) as pool:
        pool.map(work, jobs, chunksize=4)


if __name__ == "__main__":
    main()
