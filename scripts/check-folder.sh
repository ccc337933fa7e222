#!/usr/bin/env bash
# The `check` benchmark folder, made with the bundled ffmpeg; used by
# device-check.sh (inside dist/, where build-bundle.sh copies this script)
# and device-jobs-ab.sh (from the repo root), so both time the same files:
#
#   check-folder.sh FFMPEG CLIPDIR [SIZE]
#
# CLIPDIR/folder gets 16 files of 4K 422 HQ (48 frames, temporal grain: 4
# distinct clips, 4 hard links each) and 4 of 4K 4444 XQ (24 frames, 16-bit
# alpha); CLIPDIR/hq-x40.mov is the first HQ clip looped to 1,920 frames.
# LONG_ONLY=1 makes just that first clip and its loop (~25 s on the H200
# host, against ~75 s for everything). Clips already there are kept.
# Exits 1 if any could not be made.
set -u
FF=$1 CLIPDIR=$2 SIZE=${3:-3840x2160}
DIR=$CLIPDIR/folder
mkdir -p "$DIR"
gen() { # out frames graph args...
  local out=$1 n=$2 graph=$3; shift 3
  [ -s "$out" ] || "$FF" -nostdin -hide_banner -v error -y -f lavfi -i "$graph" -frames:v "$n" "$@" "$out.tmp.mov" && mv "$out.tmp.mov" "$out" 2>/dev/null
}
# One 48-frame 4K HQ clip with grain (seed $1), and the first one looped.
hq() {
  gen "$CLIPDIR/hq-$1.mov" 48 "testsrc2=size=$SIZE:rate=25,format=yuv422p10le,noise=alls=24:allf=t+u:all_seed=$1,format=yuv422p10le" \
    -c:v prores_ks -profile:v hq -vendor apl0
}
LONG=$CLIPDIR/hq-x40.mov
long() { [ -s "$LONG" ] || "$FF" -nostdin -v error -y -stream_loop 39 -i "$CLIPDIR/hq-1.mov" -c copy "$LONG"; }
if [ -n "${LONG_ONLY:-}" ]; then
  hq 1
  long || exit 1
  exit 0
fi
# (`wait` with no operand would also wait for a caller's tee: name the jobs.)
pids=()
for seed in 1 2 3 4; do
  hq "$seed" &
  pids+=($!)
done
gen "$CLIPDIR/xq.mov" 24 "testsrc2=size=$SIZE:rate=25,format=yuva444p10le,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='255*X/W'" \
  -c:v prores_ks -profile:v 4444xq -alpha_bits 16 -vendor apl0 &
pids+=($!)
wait "${pids[@]}"
missing=0
for clip in hq-1 hq-2 hq-3 hq-4 xq; do [ -s "$CLIPDIR/$clip.mov" ] || { echo "cannot make $CLIPDIR/$clip.mov"; missing=1; }; done
[ $missing -eq 0 ] || exit 1
for seed in 1 2 3 4; do for copy in a b c d; do ln -f "$CLIPDIR/hq-$seed.mov" "$DIR/hq-$seed$copy.mov"; done; done
for copy in a b c d; do ln -f "$CLIPDIR/xq.mov" "$DIR/xq-$copy.mov"; done
long || exit 1
