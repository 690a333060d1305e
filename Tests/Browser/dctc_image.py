"""Reads the DCTC timecode (shared/TIMECODE.md) from a screenshot: an RGB(A) PNG of a
canvas (or any picture) that shows one synthetic camera frame, scaled.

The grid geometry and the bit layout are tools/dctc_read.py's (read_code, with the
picture placed as a "slot" of the source frame, as TIMECODE.md reads a composite):
luma from RGB, the grid of the source frame scaled to the picture and centred in it,
each cell's central half averaged, 1 above 125. Only the PNG decoding and the
object-fit arithmetic live here.

  python3 Tests/Browser/dctc_image.py SHOT.png [--source WxH]   prints the code
"""
import io
import os
import sys
import time

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
from dctc_read import read_code, signed_diff  # noqa: E402  (the one reader of the bit layout)

UNITS_PER_SECOND = 10_000  # V counts 100 µs


def luma(png_bytes):
    """BT.709 luma (0-255) of a PNG. The browser turned the limited-range frame into full-range
    RGB, so a 1 cell is about 255 and a 0 cell about 0 here."""
    rgb = np.asarray(Image.open(io.BytesIO(png_bytes)).convert("RGB"), dtype=np.float32)
    return rgb[..., 0] * 0.2126 + rgb[..., 1] * 0.7152 + rgb[..., 2] * 0.0722


def contained_rect(box_w, box_h, image_w, image_h):
    """Where an image_w x image_h picture lands in a box_w x box_h element with
    object-fit: contain (the page's canvases): x, y, w, h in the box's pixels."""
    s = min(box_w / image_w, box_h / image_h)
    w, h = image_w * s, image_h * s
    return (box_w - w) / 2, (box_h - h) / 2, w, h


def read_png(png_bytes, canvas=None, source=None, zoom=1.0):
    """The DCTC code of a screenshot of one camera's picture.

    canvas: (w, h) of the canvas's own bitmap, when the screenshot is of a canvas element
            whose box may have another shape (object-fit: contain); default: the picture
            fills the screenshot.
    source: (w, h) of the camera's frame the grid was drawn in (default: the canvas's
            size, or the screenshot's). A preview scaled down from the camera's frame keeps
            the frame's grid, scaled: TIMECODE.md's composite rule, s = max(slot/source).
    zoom:   the camera's digital zoom, centred: its grid is read as if the picture were
            `zoom` times larger about its centre (cells `zoom` times the size)."""
    y = luma(png_bytes)
    h, w = y.shape
    x, y0, sw, sh = (0, 0, w, h) if canvas is None else contained_rect(w, h, *canvas)
    slot = (x + sw * (1 - zoom) / 2, y0 + sh * (1 - zoom) / 2, sw * zoom, sh * zoom)
    src = source or canvas or (w, h)
    return read_code(y, slot, src)


def monotonic_code(ns=None):
    """V for an instant of CLOCK_MONOTONIC (now by default), as TIMECODE.md defines it."""
    if ns is None:
        ns = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    return (ns // 100_000) % (1 << 32)


def age_ms(code, at_ns):
    """How long before the CLOCK_MONOTONIC instant at_ns the code's frame was captured, in ms."""
    return signed_diff(monotonic_code(at_ns), code) / 10


def main():
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("png")
    ap.add_argument("--source", help="WxH of the camera frame (default: the picture's size)")
    args = ap.parse_args()
    source = tuple(int(v) for v in args.source.split("x")) if args.source else None
    with open(args.png, "rb") as f:
        code = read_png(f.read(), source=source)
    print(code, f"{code / UNITS_PER_SECOND:.4f}s")


if __name__ == "__main__":
    main()
