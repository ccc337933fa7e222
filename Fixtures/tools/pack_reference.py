#!/usr/bin/env python3
"""Independent reference packer for the prores-decode test fixtures.

Standard library only.  It does NOT use prores-decode in any way: it asks the
ffmpeg CLI for the decoded frames as planar rawvideo in the decoder's native
pixel format and then builds Apple's y416 and v216 layouts from those planes,
written plainly from the layout definitions (no clever optimisation), so that
it can serve as an independent check of the Swift implementation.

Usage:
    pack_reference.py CLIP REFDIR [--pix-fmt PIXFMT] [--name NAME]
                      [--dump-dir DIR]

Writes  REFDIR/NAME.y416.md5  and  REFDIR/NAME.v216.md5  (NAME defaults to the
clip's file name), one line per frame: "<index> <md5 hex>".
If REFDIR/NAME.framemd5 exists, the md5 of every raw planar frame is checked
against it (proving that the planes read here are exactly the frames ffmpeg's
framemd5 hashed); a mismatch is an error.
--dump-dir writes the packed frames as NAME.<index>.y416 / .v216 files
(debugging aid only; not used by make-fixtures.sh).

Input planes (from `ffmpeg -f rawvideo -pix_fmt <native>`): Y, Cb, Cr, [A],
each 16-bit little-endian, LSB-aligned (value range 0 .. 2^depth-1), rows
tightly packed.  For 4:2:2 the chroma planes are ceil(width/2) samples wide.

Layouts produced (16-bit little-endian words, rows tightly packed):

  y416: per pixel  A, Y', Cb, Cr.
        Y'/Cb/Cr are MSB-aligned: v16 = v << (16 - depth).
        A is full range with bit replication: a16 = (a << (16-d)) | (a >> (2d-16)),
        a source without alpha gives 65535.
        4:2:2 sources: pixel x uses chroma sample x // 2.
  v216: per pixel pair  Cb, Y'0, Cr, Y'1 (MSB-aligned as above).
        4:2:2: pair (2k, 2k+1) uses chroma sample k.
        4:4:4: the chroma of pixel 2k is used, alpha is dropped.
        Odd width: the last pair repeats its Y'0 as Y'1.
        Row size = ceil(width / 2) * 8 bytes.
"""

import argparse
import array
import hashlib
import json
import os
import re
import subprocess
import sys

PIXFMT_RE = re.compile(r"^yuv(a?)(422|444)p(10|12)le$")


def parse_pix_fmt(pix_fmt):
    m = PIXFMT_RE.match(pix_fmt)
    if not m:
        raise SystemExit("unsupported native pix_fmt %r" % pix_fmt)
    has_alpha = m.group(1) == "a"
    chroma = m.group(2)
    depth = int(m.group(3))
    return has_alpha, chroma, depth


def probe(clip):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0",
         "-show_entries", "stream=width,height,pix_fmt", "-of", "json", clip],
        check=True, stdout=subprocess.PIPE).stdout
    s = json.loads(out)["streams"][0]
    return int(s["width"]), int(s["height"]), s["pix_fmt"]


def decode_raw(clip, pix_fmt):
    return subprocess.run(
        ["ffmpeg", "-hide_banner", "-nostdin", "-v", "error", "-threads", "1",
         "-i", clip, "-map", "0:v:0", "-f", "rawvideo", "-pix_fmt", pix_fmt, "-"],
        check=True, stdout=subprocess.PIPE).stdout


def words_le(data):
    """bytes -> array of unsigned 16-bit values, interpreting data as little-endian."""
    a = array.array("H")
    assert a.itemsize == 2
    a.frombytes(data)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def to_le_bytes(a):
    if sys.byteorder != "little":
        a = array.array("H", a)
        a.byteswap()
    return a.tobytes()


def msb(v, depth):
    return v << (16 - depth)


def alpha16(a, depth):
    return (a << (16 - depth)) | (a >> (2 * depth - 16))


def pack_y416(w, h, depth, chroma, Y, Cb, Cr, A):
    cw = w if chroma == "444" else (w + 1) // 2
    out = array.array("H")
    for y in range(h):
        for x in range(w):
            cx = x if chroma == "444" else x // 2
            if A is None:
                a16 = 65535
            else:
                a16 = alpha16(A[y * w + x], depth)
            out.append(a16)
            out.append(msb(Y[y * w + x], depth))
            out.append(msb(Cb[y * cw + cx], depth))
            out.append(msb(Cr[y * cw + cx], depth))
    return to_le_bytes(out)


def pack_v216(w, h, depth, chroma, Y, Cb, Cr):
    cw = w if chroma == "444" else (w + 1) // 2
    pairs = (w + 1) // 2
    out = array.array("H")
    for y in range(h):
        for k in range(pairs):
            x0 = 2 * k
            x1 = 2 * k + 1
            cx = x0 if chroma == "444" else k
            y0 = Y[y * w + x0]
            if x1 < w:
                y1 = Y[y * w + x1]
            else:
                y1 = y0  # odd width: last pair repeats Y'0
            out.append(msb(Cb[y * cw + cx], depth))
            out.append(msb(y0, depth))
            out.append(msb(Cr[y * cw + cx], depth))
            out.append(msb(y1, depth))
    assert len(out) * 2 == pairs * 8 * h
    return to_le_bytes(out)


def read_framemd5(path):
    hashes = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            hashes.append(line.rsplit(",", 1)[1].strip())
    return hashes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clip")
    ap.add_argument("refdir")
    ap.add_argument("--pix-fmt", help="native pix_fmt (default: from ffprobe)")
    ap.add_argument("--name", help="output base name (default: clip file name)")
    ap.add_argument("--dump-dir", help="also write packed frames here")
    args = ap.parse_args()

    name = args.name or os.path.basename(args.clip)
    w, h, probed_fmt = probe(args.clip)
    pix_fmt = args.pix_fmt or probed_fmt
    has_alpha, chroma, depth = parse_pix_fmt(pix_fmt)

    cw = w if chroma == "444" else (w + 1) // 2
    luma_words = w * h
    chroma_words = cw * h
    alpha_words = w * h if has_alpha else 0
    frame_words = luma_words + 2 * chroma_words + alpha_words
    frame_bytes = 2 * frame_words

    raw = decode_raw(args.clip, pix_fmt)
    if len(raw) % frame_bytes != 0:
        raise SystemExit("%s: %d bytes of rawvideo is not a multiple of the "
                         "frame size %d" % (args.clip, len(raw), frame_bytes))
    nframes = len(raw) // frame_bytes
    if nframes == 0:
        raise SystemExit("%s: no frames decoded" % args.clip)

    fmd5_path = os.path.join(args.refdir, name + ".framemd5")
    expected = read_framemd5(fmd5_path) if os.path.exists(fmd5_path) else None
    if expected is not None and len(expected) != nframes:
        raise SystemExit("%s: %d frames here but %d in %s"
                         % (args.clip, nframes, len(expected), fmd5_path))

    y416_lines = []
    v216_lines = []
    for i in range(nframes):
        fr = raw[i * frame_bytes:(i + 1) * frame_bytes]
        if expected is not None:
            got = hashlib.md5(fr).hexdigest()
            if got != expected[i]:
                raise SystemExit("%s frame %d: raw md5 %s != framemd5 %s"
                                 % (args.clip, i, got, expected[i]))
        words = words_le(fr)
        o = 0
        Y = words[o:o + luma_words]; o += luma_words
        Cb = words[o:o + chroma_words]; o += chroma_words
        Cr = words[o:o + chroma_words]; o += chroma_words
        A = words[o:o + alpha_words] if has_alpha else None

        y416 = pack_y416(w, h, depth, chroma, Y, Cb, Cr, A)
        v216 = pack_v216(w, h, depth, chroma, Y, Cb, Cr)
        assert len(y416) == w * h * 8
        assert len(v216) == ((w + 1) // 2) * 8 * h
        y416_lines.append("%d %s\n" % (i, hashlib.md5(y416).hexdigest()))
        v216_lines.append("%d %s\n" % (i, hashlib.md5(v216).hexdigest()))
        if args.dump_dir:
            os.makedirs(args.dump_dir, exist_ok=True)
            with open(os.path.join(args.dump_dir, "%s.%d.y416" % (name, i)), "wb") as f:
                f.write(y416)
            with open(os.path.join(args.dump_dir, "%s.%d.v216" % (name, i)), "wb") as f:
                f.write(v216)

    with open(os.path.join(args.refdir, name + ".y416.md5"), "w") as f:
        f.writelines(y416_lines)
    with open(os.path.join(args.refdir, name + ".v216.md5"), "w") as f:
        f.writelines(v216_lines)
    print("%s: %s %dx%d, %d frames%s" % (
        name, pix_fmt, w, h, nframes,
        ", raw frames match framemd5" if expected is not None else ""))


if __name__ == "__main__":
    main()
