#!/usr/bin/env bash
# Regenerates every file in Fixtures/ (clips, bad/ corpus, ref/ checksums)
# from scratch with the ffmpeg CLI (tested with Debian 12's ffmpeg 5.1) and
# the stdlib-only python tools in Fixtures/tools/.  Deterministic: bit-exact
# flags, no metadata, single-threaded encoders, fixed seeds; running it twice
# gives identical files.
#
# Nothing in here uses prores-decode: ref/ is an independent reference.
#
# Usage: Fixtures/make-fixtures.sh        (from anywhere)
set -euo pipefail

cd "$(dirname "$0")"
export LC_ALL=C

FFMPEG=(ffmpeg -hide_banner -nostdin -v error -y)
# container side: no creation time / encoder string / metadata
MUX=(-fflags +bitexact -map_metadata -1)
# encoder side
ENC=(-threads 1 -an)

W=192; H=112          # multiple of 16 both ways (12x7 MBs: slices of 8+4 MBs per row)
OW=187; OH=101        # odd size: not a multiple of 16 (nor of 2) either way
FRAMES=5
RATE=25

# Source: testsrc2 (moving, so every frame differs), produced directly in the
# encoder's 10-bit input format (no swscale involved).
src() { # src WxH PIXFMT [extra filters]
    local g="testsrc2=size=$1:rate=$RATE,format=$2"
    if [[ $# -ge 3 ]]; then g="$g,$3"; fi
    echo "$g"
}
# Alpha: an opaque band (1023), a transparent band (0) and below that a
# stepped gradient that moves from frame to frame and uses all low bits.
ALPHA_EXPR="if(lt(Y,H/4),1023,if(lt(Y,H/2),0,clip(floor(X/8)*33+floor(Y/16)*5+N*37,0,1023)))"
ALPHA="geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='$ALPHA_EXPR'"

# ks OUT SOURCE-GRAPH [ffmpeg output options...]   (prores_ks encode)
ks() {
    local out=$1 graph=$2; shift 2
    "${FFMPEG[@]}" -f lavfi -i "$graph" -frames:v "$FRAMES" \
        -c:v prores_ks "${ENC[@]}" "$@" "${MUX[@]}" "$out"
}

echo "== cleaning"
rm -f ./*.mov ./*.mxf ./*.prores
rm -rf bad ref
mkdir -p bad ref

echo "== ProRes 422 family"
ks proxy.mov "$(src ${W}x$H yuv422p10le)" -profile:v proxy    -flags +bitexact
ks lt.mov    "$(src ${W}x$H yuv422p10le)" -profile:v lt       -flags +bitexact
ks 422.mov   "$(src ${W}x$H yuv422p10le)" -profile:v standard -flags +bitexact
ks hq.mov    "$(src ${W}x$H yuv422p10le)" -profile:v hq       -flags +bitexact

echo "== ProRes 4444 family"
ks 4444.mov         "$(src ${W}x$H yuva444p10le "$ALPHA")" -profile:v 4444   -alpha_bits 16 -flags +bitexact
ks 4444-alpha8.mov  "$(src ${W}x$H yuva444p10le "$ALPHA")" -profile:v 4444   -alpha_bits 8  -flags +bitexact
ks 4444-noalpha.mov "$(src ${W}x$H yuv444p10le)"           -profile:v 4444                  -flags +bitexact
ks 4444xq.mov       "$(src ${W}x$H yuva444p10le "$ALPHA")" -profile:v 4444xq -alpha_bits 16 -flags +bitexact

echo "== interlaced"
ks interlaced-tff.mov "$(src ${W}x$H yuv422p10le)" -profile:v hq -vf setfield=tff -flags +bitexact+ildct+ilme
ks interlaced-bff.mov "$(src ${W}x$H yuv422p10le)" -profile:v hq -vf setfield=bff -flags +bitexact+ildct+ilme

echo "== odd size"
# testsrc2 rounds a 4:2:2 width down to even, so make one column more and crop
# exactly (crop only moves pointers / sets the size: no resampling).
ks odd-size.mov     "$(src $((OW + 1))x$OH yuv422p10le "crop=$OW:$OH:0:0:exact=1")" -profile:v hq -flags +bitexact
ks odd-size-444.mov "$(src ${OW}x$OH yuva444p10le "$ALPHA")" -profile:v 4444 -alpha_bits 16 -flags +bitexact

echo "== colour-tagged HQ"
# Debian's ffmpeg 5.1 only writes the tags into the ProRes frame header when
# they are set both on the frames (setparams) and as output options.
tagged() { # tagged OUT PRIMARIES TRC MATRIX
    ks "$1" "$(src ${W}x$H yuv422p10le)" -profile:v hq -flags +bitexact \
        -vf "setparams=color_primaries=$2:color_trc=$3:colorspace=$4" \
        -color_primaries "$2" -color_trc "$3" -colorspace "$4"
}
tagged bt709.mov bt709    bt709        bt709
tagged pq.mov    bt2020   smpte2084    bt2020nc
tagged hlg.mov   bt2020   arib-std-b67 bt2020nc
tagged p3.mov    smpte432 bt709        bt709

echo "== other containers / encoder variants"
"${FFMPEG[@]}" -r "$RATE" -i hq.mov -c copy "${MUX[@]}" -flags +bitexact -f mxf hq.mxf
"${FFMPEG[@]}" -i hq.mov -c copy "${MUX[@]}" -f rawvideo hq.prores
"${FFMPEG[@]}" -f lavfi -i "$(src ${W}x$H yuv422p10le)" -frames:v "$FRAMES" \
    -c:v prores_aw -profile:v 3 "${ENC[@]}" -flags +bitexact "${MUX[@]}" aw-hq.mov
ks slices1.mov "$(src ${W}x$H yuv422p10le)" -profile:v hq -mbs_per_slice 1 -flags +bitexact

GOOD=(proxy.mov lt.mov 422.mov hq.mov
      4444.mov 4444-alpha8.mov 4444-noalpha.mov 4444xq.mov
      interlaced-tff.mov interlaced-bff.mov
      odd-size.mov odd-size-444.mov
      bt709.mov pq.mov hlg.mov p3.mov
      hq.mxf hq.prores aw-hq.mov slices1.mov)

echo "== bad/"
: > bad/empty.mov
python3 tools/fixture_util.py random bad/random.bin 4096 1
printf 'This is a plain text file with a .mov name.\nIt is not a QuickTime movie and contains no ProRes.\n' > bad/text.mov
"${FFMPEG[@]}" -f lavfi -i "testsrc2=size=128x72:rate=$RATE" -frames:v 3 -pix_fmt yuv420p \
    -c:v libx264 -preset ultrafast -threads 1 "${MUX[@]}" -flags +bitexact bad/h264.mp4
# hq.mov has its moov atom at the end: cutting at 50% loses it entirely
python3 tools/fixture_util.py cut hq.mov bad/truncated.mov 1 2
# faststart copy (moov first), cut in the middle of packet 2 -> frames 0,1
# complete, frame 2 cut short, frames 3,4 missing
"${FFMPEG[@]}" -i hq.mov -c copy "${MUX[@]}" -movflags +faststart ref/.faststart-tmp.mov
python3 tools/fixture_util.py cut-in-packet ref/.faststart-tmp.mov bad/truncated-faststart.mov 2
rm -f ref/.faststart-tmp.mov
python3 tools/fixture_util.py corrupt-packet hq.mov bad/corrupt-slice.mov 2 64 2
python3 tools/fixture_util.py bad-header hq.mov bad/bad-header.mov 1

echo "== checks"
fail() { echo "CHECK FAILED: $*" >&2; exit 1; }
stream_field() { # stream_field FILE KEY
    ffprobe -v error -select_streams v:0 -show_entries "stream=$2" -of default=nw=1:nk=1 "$1"
}
frame_field() { # frame_field FILE KEY   (first frame)
    ffprobe -v error -select_streams v:0 -read_intervals '%+#1' -show_entries "frame=$2" \
        -of default=nw=1:nk=1 "$1"
}
for c in "${GOOD[@]}"; do
    [[ $c == *.prores ]] && continue
    n=$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames \
        -of default=nw=1:nk=1 "$c")
    [[ $n == "$FRAMES" ]] || fail "$c decodes to $n frames, expected $FRAMES"
    ffmpeg -nostdin -v error -threads 1 -i "$c" -f null - 2>&1 | grep -q . && fail "$c: ffmpeg reports errors"
    [[ $(stream_field "$c" codec_name) == prores ]] || fail "$c is not prores"
done
for c in 4444.mov 4444-alpha8.mov 4444xq.mov odd-size-444.mov; do
    [[ $(stream_field "$c" pix_fmt) == yuva444p12le ]] || fail "$c has no alpha"
done
[[ $(stream_field 4444-noalpha.mov pix_fmt) == yuv444p12le ]] || fail "4444-noalpha.mov pix_fmt"
[[ $(stream_field odd-size.mov width)x$(stream_field odd-size.mov height) == ${OW}x$OH ]] || fail "odd-size.mov size"
[[ $(stream_field odd-size-444.mov width)x$(stream_field odd-size-444.mov height) == ${OW}x$OH ]] || fail "odd-size-444.mov size"
[[ $(stream_field 4444xq.mov codec_tag_string) == ap4x ]] || fail "4444xq.mov tag"
[[ $(frame_field interlaced-tff.mov interlaced_frame),$(frame_field interlaced-tff.mov top_field_first) == 1,1 ]] || fail "tff"
[[ $(frame_field interlaced-bff.mov interlaced_frame),$(frame_field interlaced-bff.mov top_field_first) == 1,0 ]] || fail "bff"
check_tags() { # check_tags FILE PRIMARIES TRC MATRIX
    local got
    got=$(frame_field "$1" color_primaries,color_transfer,color_space | tr '\n' ' ')
    [[ $got == *"$2"* && $got == *"$3"* && $got == *"$4"* ]] || fail "$1 frame tags: $got"
    got=$(stream_field "$1" color_primaries,color_transfer,color_space | tr '\n' ' ')
    [[ $got == *"$2"* && $got == *"$3"* && $got == *"$4"* ]] || fail "$1 stream tags: $got"
}
check_tags bt709.mov bt709    bt709        bt709
check_tags pq.mov    bt2020   smpte2084    bt2020nc
check_tags hlg.mov   bt2020   arib-std-b67 bt2020nc
check_tags p3.mov    smpte432 bt709        bt709
python3 tools/fixture_util.py same-as-packets hq.prores hq.mov
python3 tools/fixture_util.py atoms bad/truncated.mov | grep -q '^moov ' && fail "truncated.mov still has its moov"
python3 tools/fixture_util.py atoms hq.mov | tail -n 1 | grep -q '^moov ' || fail "hq.mov moov not at end"
python3 tools/fixture_util.py atoms bad/truncated-faststart.mov | head -n 3 | grep -q '^moov ' || fail "faststart moov not first"
if ffprobe -v error -show_streams bad/truncated.mov >/dev/null 2>&1; then fail "truncated.mov is readable"; fi
n=$(ffmpeg -nostdin -v quiet -threads 1 -i bad/truncated-faststart.mov -f framemd5 - | grep -vc '^#' || true)
[[ $n -ge 2 && $n -lt $FRAMES ]] || fail "truncated-faststart.mov decodes $n frames"
ffprobe -v error -show_streams bad/corrupt-slice.mov >/dev/null || fail "corrupt-slice.mov container unreadable"
ffmpeg -nostdin -v error -threads 1 -i bad/corrupt-slice.mov -f null - 2>&1 | grep -q . || fail "corrupt-slice.mov: no decode error"
ffmpeg -nostdin -v error -threads 1 -i bad/bad-header.mov -f null - 2>&1 | grep -q . || fail "bad-header.mov: no decode error"
[[ $(stream_field bad/h264.mp4 codec_name) == h264 ]] || fail "h264.mp4"

echo "== ref/"
for c in "${GOOD[@]}"; do
    [[ $c == *.prores ]] && continue
    ffmpeg -nostdin -v error -threads 1 -i "$c" -map 0:v:0 -fflags +bitexact -f framemd5 - > "ref/$c.framemd5"
    stream_field "$c" pix_fmt > "ref/$c.pixfmt"
    python3 tools/pack_reference.py "$c" ref
done
# ffmpeg 5.1 has no raw ProRes demuxer, so hq.prores cannot be decoded by the
# CLI.  It was checked above to be byte-for-byte the concatenation of hq.mov's
# packets, so its decoded frames are hq.mov's: reuse those references.
for ext in framemd5 pixfmt y416.md5 v216.md5; do
    cp "ref/hq.mov.$ext" "ref/hq.prores.$ext"
done

python3 tools/make_tags.py ref/tags.tsv "${GOOD[@]}"

# ref/bad.tsv: human documentation of what ffmpeg itself says
{
    printf 'file\tbytes\twhat\tframes_ffmpeg_decodes\tffmpeg_first_error\n'
    bad_row() { # bad_row FILE DESCRIPTION
        local err n
        err=$(ffmpeg -nostdin -v error -threads 1 -i "$1" -f null - 2>&1 | head -n 1 \
              | sed -E 's/ @ 0x[0-9a-f]+//g' || true)
        n=$(ffmpeg -nostdin -v quiet -threads 1 -i "$1" -f framemd5 - 2>/dev/null | grep -vc '^#' || true)
        printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$(stat -c %s "$1")" "$2" "$n" "${err:-(none)}"
    }
    bad_row bad/empty.mov "0-byte file"
    bad_row bad/random.bin "4096 pseudo-random bytes (python random.seed(1))"
    bad_row bad/text.mov "plain text file named .mov"
    bad_row bad/h264.mp4 "valid 3-frame H.264 MP4 (not ProRes)"
    bad_row bad/truncated.mov "hq.mov cut at 50% (moov is at the end, so it is lost)"
    bad_row bad/truncated-faststart.mov "faststart hq.mov cut in the middle of frame 2's packet"
    bad_row bad/corrupt-slice.mov "hq.mov with 64 garbage bytes in the middle of frame 2's slice data"
    bad_row bad/bad-header.mov "hq.mov with frame 1's 'icpf' tag overwritten by 'BAD!'"
} > ref/bad.tsv

echo "== done"
du -sh .
