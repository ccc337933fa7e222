#!/usr/bin/env python3
"""Byte-level helpers for make-fixtures.sh (standard library only).

  fixture_util.py random OUT NBYTES SEED
      deterministic pseudo-random bytes (random.seed(SEED), getrandbits(8))
  fixture_util.py atoms FILE
      print the top-level QuickTime atoms: "<type> <offset> <size>"
  fixture_util.py cut IN OUT NUM DEN
      copy the first floor(size*NUM/DEN) bytes
  fixture_util.py cut-in-packet IN OUT FRAME
      copy everything before the middle of video packet FRAME (0-based)
  fixture_util.py corrupt-packet IN OUT FRAME NBYTES SEED
      copy IN, then overwrite NBYTES in the middle of packet FRAME with
      random.seed(SEED) garbage; refuses to touch the first 200 bytes of the
      packet or anything before the end of its slice index table
  fixture_util.py bad-header IN OUT FRAME
      copy IN, then overwrite the 'icpf' tag of packet FRAME with 'BAD!'
  fixture_util.py packets FILE
      print "<index> <pos> <size>" for every video packet (from ffprobe)
  fixture_util.py same-as-packets RAW CONTAINER
      check that RAW is exactly the concatenation of CONTAINER's video packets
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


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def atoms(data):
    res = []
    pos = 0
    while pos + 8 <= len(data):
        size = int.from_bytes(data[pos:pos + 4], "big")
        typ = data[pos + 4:pos + 8].decode("latin-1")
        if size == 1:
            size = int.from_bytes(data[pos + 8:pos + 16], "big")
        elif size == 0:
            size = len(data) - pos
        res.append((typ, pos, size))
        if size < 8:
            break
        pos += size
    return res


def slice_table_end(pkt):
    """Offset (within the packet) of the first byte after the slice index table
    of the first picture."""
    assert pkt[4:8] == b"icpf", "packet does not start with size + icpf"
    hdr_size = int.from_bytes(pkt[8:10], "big")
    pic = 8 + hdr_size
    pic_hdr_size = pkt[pic] >> 3
    nslices = int.from_bytes(pkt[pic + 5:pic + 7], "big")
    return pic + pic_hdr_size + 2 * nslices


def main():
    cmd = sys.argv[1]
    a = sys.argv[2:]
    if cmd == "random":
        out, n, seed = a[0], int(a[1]), int(a[2])
        random.seed(seed)
        write(out, bytes(random.getrandbits(8) for _ in range(n)))
    elif cmd == "atoms":
        for typ, pos, size in atoms(read(a[0])):
            print(typ, pos, size)
    elif cmd == "cut":
        data = read(a[0])
        write(a[1], data[:len(data) * int(a[2]) // int(a[3])])
    elif cmd == "cut-in-packet":
        data = read(a[0])
        pos, size = packets(a[0])[int(a[2])]
        write(a[1], data[:pos + size // 2])
    elif cmd == "corrupt-packet":
        data = bytearray(read(a[0]))
        frame, n, seed = int(a[2]), int(a[3]), int(a[4])
        pos, size = packets(a[0])[frame]
        keep = max(200, slice_table_end(bytes(data[pos:pos + size])))
        start = pos + size // 2 - n // 2
        if start < pos + keep or start + n > pos + size:
            raise SystemExit("packet %d too small to corrupt safely" % frame)
        random.seed(seed)
        for i in range(n):
            data[start + i] = random.getrandbits(8)
        write(a[1], bytes(data))
        print("packet %d at %d (+%d bytes, header+slice table %d bytes): "
              "overwrote bytes %d..%d" % (frame, pos, size, keep, start,
                                          start + n - 1))
    elif cmd == "bad-header":
        data = bytearray(read(a[0]))
        pos, size = packets(a[0])[int(a[2])]
        assert data[pos + 4:pos + 8] == b"icpf"
        data[pos + 4:pos + 8] = b"BAD!"
        write(a[1], bytes(data))
        print("packet %s at %d: icpf -> BAD! at offset %d" % (a[2], pos, pos + 4))
    elif cmd == "packets":
        for i, (pos, size) in enumerate(packets(a[0])):
            print(i, pos, size)
    elif cmd == "same-as-packets":
        raw = read(a[0])
        data = read(a[1])
        cat = b"".join(data[p:p + s] for p, s in packets(a[1]))
        if raw != cat:
            raise SystemExit("%s is not the concatenation of %s's packets"
                             % (a[0], a[1]))
        print("%s == concatenated video packets of %s (%d bytes)"
              % (a[0], a[1], len(raw)))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
