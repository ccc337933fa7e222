#!/usr/bin/env python3
"""Write ref/tags.tsv: what ffprobe (and the raw ProRes frame header) say about
each good fixture clip.  Standard library only; independent of prores-decode.

Usage: make_tags.py OUT.tsv CLIP...

Columns:
  file, format           container (ffprobe format_name)
  codec_tag_string, profile, width, height, pix_fmt, nb_frames (container
  count, N/A when the container has none), nb_read_frames (frames ffprobe
  actually decoded), field_order (stream level, from the container)
  frame_*, stream_*      colour values ffprobe leaves out (unspecified) are
                         written as "unknown", as ffprobe's default output does
  frame_*                first decoded frame from
                         `ffprobe -show_frames -read_intervals %+#1`; libavcodec's
                         ProRes decoder takes these from the ProRes frame header
  stream_*               stream level (container / codec parameters)
  hdr_*                  bytes of the first frame's ProRes frame header, parsed
                         here directly from the file (no libavcodec):
                         hdr_creator (4CC), hdr_chroma (2 = 4:2:2, 3 = 4:4:4),
                         hdr_interlace (0 progressive, 1 TFF, 2 BFF),
                         hdr_primaries / hdr_transfer / hdr_matrix (ISO/IEC
                         23091-4 code points, 2 = unspecified),
                         hdr_alpha_info (0 none, 1 8-bit, 2 16-bit)

A raw ProRes elementary stream (*.prores) cannot be read by ffmpeg 5.1 (no
demuxer); its row is filled from the frame headers alone ('-' elsewhere).
"""

import json
import os
import subprocess
import sys

COLUMNS = [
    "file", "format", "codec_tag_string", "profile", "width", "height",
    "pix_fmt", "nb_frames", "nb_read_frames", "field_order",
    "frame_color_primaries", "frame_color_transfer", "frame_color_space",
    "frame_color_range", "frame_interlaced", "frame_top_field_first",
    "stream_color_primaries", "stream_color_transfer", "stream_color_space",
    "stream_color_range",
    "hdr_creator", "hdr_chroma", "hdr_interlace", "hdr_primaries",
    "hdr_transfer", "hdr_matrix", "hdr_alpha_info",
]


def ffprobe_json(args):
    out = subprocess.run(["ffprobe", "-v", "error", "-of", "json"] + args,
                         check=True, stdout=subprocess.PIPE).stdout
    return json.loads(out)


def parse_frame_header(buf):
    """buf starts at the 4-byte frame size that precedes 'icpf'."""
    if buf[4:8] != b"icpf":
        raise ValueError("no icpf tag")
    h = buf[8:]
    return {
        "frame_size": int.from_bytes(buf[0:4], "big"),
        "hdr_creator": h[4:8].decode("latin-1"),
        "width": int.from_bytes(h[8:10], "big"),
        "height": int.from_bytes(h[10:12], "big"),
        "hdr_chroma": str(h[12] >> 6),
        "hdr_interlace": str((h[12] >> 2) & 3),
        "hdr_primaries": str(h[14]),
        "hdr_transfer": str(h[15]),
        "hdr_matrix": str(h[16]),
        "hdr_alpha_info": str(h[17] & 0x0F),
    }


def row_for_clip(path):
    row = {c: "-" for c in COLUMNS}
    row["file"] = os.path.basename(path)
    with open(path, "rb") as f:
        data = f.read()

    if path.endswith(".prores"):
        hdr = parse_frame_header(data)
        row.update({k: v for k, v in hdr.items() if k in row})
        row["format"] = "raw ProRes (icpf frames)"
        # count frames by walking the size fields
        pos, n = 0, 0
        while pos < len(data):
            fh = parse_frame_header(data[pos:pos + 32])
            pos += fh["frame_size"]
            n += 1
        if pos != len(data):
            raise SystemExit("%s: frame sizes do not add up" % path)
        row["nb_read_frames"] = str(n)
        row["width"] = str(hdr["width"])
        row["height"] = str(hdr["height"])
        return row

    j = ffprobe_json(["-count_frames", "-select_streams", "v:0",
                      "-show_streams", "-show_format", path])
    s = j["streams"][0]
    row["format"] = j["format"]["format_name"]
    for k in ("codec_tag_string", "profile", "width", "height", "pix_fmt",
              "nb_frames", "nb_read_frames", "field_order"):
        row[k] = str(s.get(k, "N/A"))
    for k in ("primaries", "transfer", "space", "range"):
        row["stream_color_" + k] = str(s.get("color_" + k, "unknown"))

    fj = ffprobe_json(["-select_streams", "v:0", "-show_frames",
                       "-read_intervals", "%+#1", path])
    fr = fj["frames"][0]
    for k in ("primaries", "transfer", "space", "range"):
        row["frame_color_" + k] = str(fr.get("color_" + k, "unknown"))
    row["frame_interlaced"] = str(fr.get("interlaced_frame", "N/A"))
    row["frame_top_field_first"] = str(fr.get("top_field_first", "N/A"))

    pj = ffprobe_json(["-select_streams", "v:0", "-show_packets",
                       "-read_intervals", "%+#1", path])
    pk = pj["packets"][0]
    pos = int(pk["pos"])
    # MXF reports the position of the KLV packet, whose 16-byte key and BER
    # length precede the ProRes frame; look for the icpf tag just after pos.
    icpf = data.find(b"icpf", pos, pos + 64)
    if icpf < 4:
        raise SystemExit("%s: no icpf near packet position %d" % (path, pos))
    hdr = parse_frame_header(data[icpf - 4:icpf + 64])
    if hdr["frame_size"] != int(pk["size"]):
        raise SystemExit("%s: frame size %d != packet size %s"
                         % (path, hdr["frame_size"], pk["size"]))
    for k in ("hdr_creator", "hdr_chroma", "hdr_interlace", "hdr_primaries",
              "hdr_transfer", "hdr_matrix", "hdr_alpha_info"):
        row[k] = hdr[k]
    if str(hdr["width"]) != row["width"] or str(hdr["height"]) != row["height"]:
        raise SystemExit("%s: header size %dx%d != stream size %sx%s" % (
            path, hdr["width"], hdr["height"], row["width"], row["height"]))
    return row


def main():
    out = sys.argv[1]
    rows = [row_for_clip(p) for p in sys.argv[2:]]
    with open(out, "w") as f:
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(r[c] for c in COLUMNS) + "\n")


if __name__ == "__main__":
    main()
