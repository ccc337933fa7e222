#!/usr/bin/env python3
"""Makes Fixtures/hostile/: small inputs whose headers make false claims.

Each file is a clean fixture with one field rewritten, so a test failing on
it names exactly one lie. Deterministic, stdlib only; rerun after
Fixtures/make-fixtures.sh changes the clips. See Fixtures/hostile/README.md.
"""
import os
import struct
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIX = os.path.join(ROOT, "Fixtures")
OUT = os.path.join(FIX, "hostile")


def read(name):
    with open(os.path.join(FIX, name), "rb") as f:
        return bytearray(f.read())


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes(data))


def ber_length(data, at):
    """(length, bytes used) of the BER length at `at`."""
    first = data[at]
    if first < 0x80:
        return first, 1
    n = first & 0x7F
    return int.from_bytes(data[at + 1:at + 1 + n], "big"), 1 + n


def patch_mxf_durations(data, value):
    """Sets every Duration (local tag 0x0202) and ContainerDuration (0x3002)
    of every metadata local set, in every partition, to `value`."""
    at, patched = 0, 0
    while at + 17 <= len(data):
        key = data[at:at + 16]
        length, used = ber_length(data, at + 16)
        start = at + 16 + used
        # 06 0e 2b 34 02 53 ...: a local set (2-byte tags, 2-byte lengths).
        if key[:4] == b"\x06\x0e\x2b\x34" and key[4] == 0x02 and key[5] == 0x53:
            cursor = start
            while cursor + 4 <= start + length:
                tag, size = struct.unpack(">HH", data[cursor:cursor + 4])
                if tag in (0x0202, 0x3002) and size == 8:
                    data[cursor + 4:cursor + 12] = struct.pack(">q", value)
                    patched += 1
                cursor += 4 + size
        at = start + length
    assert patched > 0, "no Duration found"
    return data


def atoms(data, start=0, end=None):
    """(type, offset, size) of the boxes between start and end."""
    end = len(data) if end is None else end
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        yield kind.decode("latin-1"), start, size
        start += size


def find_box(data, path):
    start, end = 0, len(data)
    for kind in path:
        for k, off, size in atoms(data, start, end):
            if k == kind:
                start, end = off + 8, off + size
                break
        else:
            raise KeyError(path)
    return start - 8


def prores_frames(data):
    """Offsets of the ProRes frames in a MOV's mdat (found by 'icpf')."""
    at, found = 0, []
    while True:
        at = data.find(b"icpf", at)
        if at < 0:
            return found
        found.append(at - 4)
        at += 4


def patch_frame_headers(data, frames, offset, mask, value):
    """Rewrites the bits `mask` of frame-header byte `offset` (after
    frame_size, 'icpf' and header_size: RDD 36 §5.1) of the given frames."""
    starts = prores_frames(data)
    for n in frames:
        at = starts[n] + 8 + offset
        data[at] = (data[at] & ~mask & 0xFF) | value
    return data


def forge_dimensions(data, width, height):
    """Every frame header of a MOV says `width`x`height` (frame-header bytes
    8-11, after frame_size, 'icpf', header_size, version and creator)."""
    for start in prores_frames(data):
        data[start + 16:start + 20] = struct.pack(">HH", width, height)
    return data


def main():
    os.makedirs(OUT, exist_ok=True)
    mxf = read("hq.mxf")
    for name, value in (("duration-max.mxf", 2**63 - 1), ("duration-2p40.mxf", 2**40),
                        ("duration-1e8.mxf", 10**8), ("duration-negative.mxf", -5)):
        write(name, patch_mxf_durations(bytearray(mxf), value))

    # A MOV whose stsz claims 2^30 samples: the table cannot hold them.
    mov = read("hq.mov")
    stbl = ["moov", "trak", "mdia", "minf", "stbl"]
    stsz = find_box(mov, stbl + ["stsz"])
    bad = bytearray(mov)
    bad[stsz + 16:stsz + 20] = struct.pack(">I", 1 << 30)
    write("stsz-count.mov", bad)
    # ... and whose table gives sample 0, or sample 2, a 1 GiB size.
    for name, sample in (("stsz-size-first.mov", 0), ("stsz-size-third.mov", 2)):
        bad = bytearray(mov)
        bad[stsz + 20 + 4 * sample:stsz + 24 + 4 * sample] = struct.pack(">I", 1 << 30)
        write(name, bad)
    stts = find_box(mov, stbl + ["stts"])
    bad = bytearray(mov)
    bad[stts + 12:stts + 16] = struct.pack(">I", 1 << 30)
    write("stts-count.mov", bad)

    # A media timescale of 0 (mdhd), and sample durations of 0 (stts).
    mdhd = find_box(mov, ["moov", "trak", "mdia", "mdhd"])
    bad = bytearray(mov)
    assert bad[mdhd + 8] == 0, "mdhd version 0"
    bad[mdhd + 20:mdhd + 24] = struct.pack(">I", 0)
    write("timescale-0.mov", bad)
    bad = bytearray(mov)
    for entry in range(struct.unpack(">I", bad[stts + 12:stts + 16])[0]):
        bad[stts + 20 + 8 * entry:stts + 24 + 8 * entry] = struct.pack(">I", 0)
    write("stts-delta-0.mov", bad)

    # Frame headers that disagree with the data under them (byte 12 of the
    # frame header holds chroma_format (bits 7-6) and interlace_mode (bits
    # 3-2), byte 17 alpha_channel_type (bits 3-0)).
    # Frame 2 of a progressive clip says "interlaced, top field first": its
    # one picture's slice index then does not add up to the picture.
    write("interlace-claim.mov", patch_frame_headers(bytearray(mov), [2], 12, 0x0C, 0x04))
    # ...and the reverse: frame 2 of an interlaced clip says "progressive".
    write("progressive-claim.mov", patch_frame_headers(read("interlaced-tff.mov"), [2], 12, 0x0C, 0x00))
    # Every frame of a 4:2:2 clip says 4:4:4: a 4:4:4 stream whose slices
    # hold half the chroma blocks the header promises.
    write("chroma-444-claim.mov", patch_frame_headers(bytearray(mov), range(5), 12, 0xC0, 0xC0))
    # Frame 2 of a 4:2:2 clip without alpha says "8-bit alpha".
    write("alpha-claim.mov", patch_frame_headers(bytearray(mov), [2], 17, 0x0F, 0x01))
    # Every frame of a 4:4:4 clip without alpha says "8-bit alpha": an alpha
    # stream whose slices carry no alpha bytes.
    write("alpha-data-missing.mov", patch_frame_headers(read("4444-noalpha.mov"), range(5), 17, 0x0F, 0x01))

    # Every frame of a MOV says 8192x8192, the sample description 192x112.
    write("dimensions-8192.mov", forge_dimensions(bytearray(mov), 8192, 8192))

    # A faststart MOV cut inside its moov.
    faststart = os.path.join(OUT, ".faststart.mov")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", os.path.join(FIX, "hq.mov"), "-c", "copy",
                    "-movflags", "+faststart", "-f", "mov", "-fflags", "+bitexact", faststart], check=True)
    with open(faststart, "rb") as f:
        fs = bytearray(f.read())
    os.remove(faststart)
    moov = find_box(fs, ["moov"])
    write("cut-in-moov.mov", fs[:moov + 200])

    # Matroska cut after 2 of its 5 frames: its index (Cues) is at the end, lost.
    mkv = os.path.join(OUT, ".whole.mkv")
    subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", os.path.join(FIX, "hq.mov"), "-c", "copy",
                    "-fflags", "+bitexact", "-f", "matroska", mkv], check=True)
    with open(mkv, "rb") as f:
        whole = bytearray(f.read())
    os.remove(mkv)
    es = read("hq.prores")
    sizes, at = [], 0
    while at < len(es):
        size = struct.unpack(">I", es[at:at + 4])[0]
        sizes.append((at, size))
        at += size
    # Matroska stores ProRes frames without their size and 'icpf' (8 bytes);
    # frame headers repeat, so find frame 2 by its slice data.
    probe = sizes[2][0] + 500
    cut = whole.find(es[probe:probe + 64]) - (500 - 8)
    assert cut > 0 and whole.find(es[probe:probe + 64]) == whole.rfind(es[probe:probe + 64]), "frame 2 not found in the mkv"
    write("truncated.mkv", whole[:cut + 100])

    # Elementary streams whose headers lie about sizes.
    first = es[:sizes[0][1]]
    lie = bytearray(first)
    lie[0:4] = struct.pack(">I", 1 << 30)
    write("frame-size-1g.prores", lie)
    big = bytearray(es)
    for off, _ in sizes:
        big[off + 16:off + 20] = struct.pack(">HH", 8192, 8192)
    write("dimensions-8192.prores", big)
    huge = bytearray(es)
    for off, _ in sizes:
        huge[off + 16:off + 20] = struct.pack(">HH", 16384, 16384)
    write("dimensions-16384.prores", huge)

    # A .cube file of binary junk with terminal escape sequences in it.
    write("junk.cube", b"\x1b]0;owned\x07\x1b[2J\x1b[31mLUT_3D_SIZE\x00\xff\xfe 2\n")
    print("wrote", ", ".join(sorted(n for n in os.listdir(OUT) if not n.startswith("."))))


if __name__ == "__main__":
    sys.exit(main())
