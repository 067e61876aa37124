#!/usr/bin/env python3
"""Generates the small DNG seeds in seeds/decoders/ for the decoders target (run once; the output is committed).
Standard library only: each DNG is written byte by byte, as Tests/TestSupport/DNGFixture.swift writes the tests'
(no camera's raw file can be downloaded here). 24x24, the smallest libraw accepts being 22 on a side.

    python3 Fuzz/make-raw-seeds.py
"""
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))
BLACK, WHITE = 256, 16383
# XYZ to linear sRGB, so the camera's channels are sRGB; a camera's response to white.
MATRIX = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
NEUTRAL = (0.5, 1.0, 0.7)
TYPES = {1: "B", 2: "s", 3: "H", 4: "I", 5: "II", 10: "ii"}


def field(tag, kind, values):
    if kind == 2:
        data = values.encode() + b"\0"
        return tag, kind, len(data), data
    fmt = "<" + TYPES[kind]
    data = b"".join(struct.pack(fmt, *v) if kind in (5, 10) else struct.pack(fmt, v) for v in values)
    return tag, kind, len(values), data


def directory(fields, offset):
    """One IFD at `offset`: its entries in tag order, no next IFD, then the values too long for an entry."""
    fields = sorted(fields)
    head = struct.pack("<H", len(fields))
    tail = b""
    values_at = offset + 2 + 12 * len(fields) + 4
    for tag, kind, count, data in fields:
        head += struct.pack("<HHI", tag, kind, count)
        if len(data) <= 4:
            head += data.ljust(4, b"\0")
        else:
            head += struct.pack("<I", values_at + len(tail))
            tail += data + (b"\0" if len(data) % 2 else b"")
    return head + struct.pack("<I", 0) + tail


def dng(size=24, orientation=1, linear=False, gps=False):
    samples = 3 if linear else 1
    pixels = b""
    for y in range(size):
        for x in range(size):
            rgb = (x / (size - 1), y / (size - 1), 0.25 if (x // 8 + y // 8) % 2 == 0 else 0.75)
            channels = (0, 1, 2) if linear else ([0, 1][x % 2] if y % 2 == 0 else [1, 2][x % 2],)
            for c in channels:
                pixels += struct.pack("<H", BLACK + round(rgb[c] * NEUTRAL[c] * (WHITE - BLACK)))
    main = [
        field(0xFE, 4, [0]), field(0x100, 4, [size]), field(0x101, 4, [size]), field(0x102, 3, [16] * samples),
        field(0x103, 3, [1]), field(0x106, 3, [34892 if linear else 32803]), field(0x10F, 2, "Flowrun"),
        field(0x110, 2, "Seed DNG"), field(0x112, 3, [orientation]), field(0x115, 3, [samples]),
        field(0x116, 4, [size]), field(0x117, 4, [len(pixels)]), field(0x11C, 3, [1]),
        field(0xC612, 1, [1, 4, 0, 0]), field(0xC614, 2, "Flowrun Seed DNG"), field(0xC61A, 3, [BLACK]),
        field(0xC61D, 3, [WHITE]), field(0xC621, 10, [(round(m * 10000), 10000) for m in MATRIX]),
        field(0xC628, 5, [(round(n * 1000), 1000) for n in NEUTRAL]), field(0xC65A, 3, [21]),
    ]
    if not linear:
        main += [field(0x828D, 3, [2, 2]), field(0x828E, 1, [0, 1, 1, 2])]
    exif = [field(0x829A, 5, [(1, 125)]), field(0x8827, 3, [200]), field(0x9003, 2, "2024:06:01 14:03:22")]
    places = [field(1, 2, "N"), field(2, 5, [(43, 1), (28, 1), (4884, 100)])] if gps else []
    # Pointers (to the EXIF and GPS IFDs and to the strip) are filled in once the sizes are known.
    pointers = [field(0x111, 4, [0]), field(0x8769, 4, [0])] + ([field(0x8825, 4, [0])] if gps else [])
    main_size = len(directory(main + pointers, 8))
    exif_at = 8 + main_size
    gps_at = exif_at + len(directory(exif, exif_at))
    strip_at = gps_at + (len(directory(places, gps_at)) if gps else 0)
    pointers = [field(0x111, 4, [strip_at]), field(0x8769, 4, [exif_at])]
    pointers += [field(0x8825, 4, [gps_at])] if gps else []
    out = b"II" + struct.pack("<HI", 42, 8) + directory(main + pointers, 8) + directory(exif, exif_at)
    if gps:
        out += directory(places, gps_at)
    return out + pixels


folder = os.path.join(here, "seeds", "decoders")
os.makedirs(folder, exist_ok=True)
for name, data in [
    ("bayer.dng", dng()),
    ("bayer-orientation-6-gps.dng", dng(orientation=6, gps=True)),
    ("linear.dng", dng(linear=True)),
]:
    with open(os.path.join(folder, name), "wb") as out:
        out.write(data)
