#!/usr/bin/env python3
"""Mutants of a ProRes MOV's frames, for comparing decoders (standard library
and the ffprobe CLI only; the ProRes layout as RDD 36 gives it).

  prores_mutate.py slices IN
      print "<frame> <slice> <qscale>" for every slice of every progressive frame
  prores_mutate.py qscale IN OUT FRAME SLICE VALUE
      copy IN with the qscale byte of slice SLICE of frame FRAME set to VALUE
  prores_mutate.py qmat IN OUT FRAME VALUE
      copy IN with every entry of frame FRAME's luma and chroma quantisation
      matrices (those its frame header carries) set to VALUE
  prores_mutate.py flip IN OUT FRAME BIT
      copy IN with bit BIT (counted from the start of the packet's slice
      data, modulo its length) of frame FRAME flipped
  prores_mutate.py truncate-slice IN OUT FRAME SLICE KEEP
      copy IN with slice SLICE of frame FRAME declaring its components
      KEEP/256 of their sizes (the bytes stay; the slice's index entry too)
  prores_mutate.py random IN OUT SEED
      one random mutation of those above (chosen by random.seed(SEED));
      prints what it did on one line

A mutant keeps the container valid: every change is inside a packet and
keeps its length.
"""

import json
import random
import subprocess
import sys


def packets(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "packet=pos,size", "-of", "json", path],
        check=True, stdout=subprocess.PIPE).stdout
    return [(int(p["pos"]), int(p["size"]))
            for p in json.loads(out)["packets"]]


def be16(data, at):
    return data[at] << 8 | data[at + 1]


class Frame:
    """Where the parts of one packet are (offsets from the packet's start)."""

    def __init__(self, data, pos, size):
        self.pos = pos
        pkt = data[pos:pos + size]
        if pkt[4:8] != b"icpf":
            raise ValueError("not a ProRes frame")
        header = 8
        header_size = be16(pkt, header)
        flags = pkt[header + 19]
        self.interlaced = (pkt[header + 12] >> 2) & 3 != 0
        matrices = header + 20
        self.matrices = []
        if flags & 2:
            self.matrices.append(matrices)
            matrices += 64
        if flags & 1:
            self.matrices.append(matrices)
        picture = header + header_size
        picture_header = pkt[picture] >> 3
        count = be16(pkt, picture + 5)
        index = picture + picture_header
        self.slices = []
        at = index + 2 * count
        self.data_start = at
        for i in range(count):
            slice_size = be16(pkt, index + 2 * i)
            self.slices.append((at, slice_size))
            at += slice_size
        self.data_end = min(at, size)


def frames(path):
    data = open(path, "rb").read()
    return data, [Frame(data, pos, size) for pos, size in packets(path)]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def set_qscale(data, frame, slice_index, value):
    offset, _ = frame.slices[slice_index]
    data[frame.pos + offset + 1] = value


def set_qmat(data, frame, value):
    for start in frame.matrices:
        for i in range(64):
            data[frame.pos + start + i] = value


def flip(data, frame, bit):
    span = (frame.data_end - frame.data_start) * 8
    bit %= span
    data[frame.pos + frame.data_start + bit // 8] ^= 0x80 >> (bit % 8)


def truncate_slice(data, frame, slice_index, keep):
    offset, _ = frame.slices[slice_index]
    at = frame.pos + offset
    header = data[at] >> 3
    # Luma and Cb sizes (and Cr's where the header holds it) shrink.
    for field in range(2, min(header, 8), 2):
        size = be16(data, at + field)
        size = size * keep // 256
        data[at + field] = size >> 8
        data[at + field + 1] = size & 0xFF


def random_mutation(data, parsed, seed):
    rng = random.Random(seed)
    f = rng.randrange(len(parsed))
    frame = parsed[f]
    kind = rng.choice(["qscale", "qmat", "flip", "flip", "truncate-slice"])
    if kind == "qmat" and not frame.matrices:
        kind = "qscale"
    if kind == "qscale":
        s = rng.randrange(len(frame.slices))
        value = rng.choice([rng.randrange(1, 256), rng.randrange(2, 16)])
        set_qscale(data, frame, s, value)
        return "qscale frame %d slice %d -> %d" % (f, s, value)
    if kind == "qmat":
        value = rng.randrange(1, 256)
        set_qmat(data, frame, value)
        return "qmat frame %d -> %d" % (f, value)
    if kind == "flip":
        bits = [rng.randrange(1 << 30) for _ in range(rng.randrange(1, 4))]
        for bit in bits:
            flip(data, frame, bit)
        return "flip frame %d bits %s" % (f, ",".join(map(str, bits)))
    s = rng.randrange(len(frame.slices))
    keep = rng.randrange(0, 256)
    truncate_slice(data, frame, s, keep)
    return "truncate-slice frame %d slice %d keep %d/256" % (f, s, keep)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, source = sys.argv[1], sys.argv[2]
    original, parsed = frames(source)
    data = bytearray(original)
    if command == "slices":
        for f, frame in enumerate(parsed):
            for s, (offset, _) in enumerate(frame.slices):
                print(f, s, data[frame.pos + offset + 1])
        return
    out = sys.argv[3]
    args = [int(a) for a in sys.argv[4:]]
    if command == "qscale":
        set_qscale(data, parsed[args[0]], args[1], args[2])
    elif command == "qmat":
        set_qmat(data, parsed[args[0]], args[1])
    elif command == "flip":
        flip(data, parsed[args[0]], args[1])
    elif command == "truncate-slice":
        truncate_slice(data, parsed[args[0]], args[1], args[2])
    elif command == "random":
        print(random_mutation(data, parsed, args[0]))
    else:
        sys.exit("unknown command " + command)
    write(out, data)


if __name__ == "__main__":
    main()
