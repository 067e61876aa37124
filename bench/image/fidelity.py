#!/usr/bin/env python3
"""PSNR and largest difference of one folder of images against another, file by file (same names).

Usage: fidelity.py REFERENCE_DIR CANDIDATE_DIR [--centre]
Prints one line: the lowest PSNR over the files (dB), the file it was on, the largest channel difference anywhere,
and the mean PSNR. Images of different sizes are an error, or with --centre (for rotations onto a canvas whose size
each tool rounds its own way) both are cut to the size they share, about their centres, and a fifth field counts the
files cut so. Only Pillow (Debian's python3-pil) is needed.
"""
import math
import os
import sys

from PIL import Image, ImageChops, ImageStat


def centred(image, size):
    left, top = (image.width - size[0]) // 2, (image.height - size[1]) // 2
    return image.crop((left, top, left + size[0], top + size[1]))


def compare(a_path, b_path, centre=False):
    a = Image.open(a_path).convert("RGB")
    b = Image.open(b_path).convert("RGB")
    cut = a.size != b.size
    if cut and not centre:
        raise SystemExit(f"fidelity: {os.path.basename(a_path)}: sizes differ, {a.size} vs {b.size}")
    if cut:
        shared = (min(a.width, b.width), min(a.height, b.height))
        a, b = centred(a, shared), centred(b, shared)
    diff = ImageChops.difference(a, b)
    stat = ImageStat.Stat(diff)
    mse = sum(stat.sum2) / (3 * a.size[0] * a.size[1])
    psnr = math.inf if mse == 0 else 10 * math.log10(255 * 255 / mse)
    largest = max(high for _, high in diff.getextrema())
    return psnr, largest, cut


def main():
    reference, candidate = sys.argv[1], sys.argv[2]
    centre = "--centre" in sys.argv[3:]
    names = sorted(n for n in os.listdir(reference) if not n.startswith("."))
    results = [(compare(os.path.join(reference, n), os.path.join(candidate, n), centre), n) for n in names]
    (worst_psnr, _, _), worst_name = min(results, key=lambda r: r[0][0])
    largest = max(r[0][1] for r in results)
    finite = [r[0][0] for r in results if math.isfinite(r[0][0])]
    mean = sum(finite) / len(finite) if finite else math.inf
    line = f"{worst_psnr:.1f} {worst_name} {largest} {mean:.1f}"
    if centre:
        line += f" {sum(1 for r in results if r[0][2])}"
    print(line)


if __name__ == "__main__":
    main()
