#!/usr/bin/env bash
# Before/after on the lent GPU machine: two bundles (dist/ of two commits)
# timed on the same clips in one call, interleaved A B A B so that clocks and
# caches treat them alike. Run after bench-device.sh, which made the clips in
# CLIPDIR (the 4K 422 HQ and 4444 clips); the file runs use the HQ clip
# looped LOOPS times (default 40: 1,920 frames, so start-up is a small part).
#   scripts/device-ab.sh DIST_A DIST_B LOGDIR
set -u
A=$1 B=$2 LOGDIR=${3:-/tmp/ab}
CLIPDIR=${CLIPDIR:-/tmp/prores-bench}
FRAMES=${FRAMES:-1200}
ROUNDS=${ROUNDS:-2}
mkdir -p "$LOGDIR"
for side in A B; do
  dist=${!side}
  mkdir -p "/tmp/ab-$side"
  gunzip -c "$dist/prores-decode.gz" > "/tmp/ab-$side/prores-decode" && chmod +x "/tmp/ab-$side/prores-decode"
  rm -rf "/tmp/ab-$side/Shaders" && cp -r "$dist/Shaders" "/tmp/ab-$side/"
  echo "$side: $(cat "$dist/LABEL" 2>/dev/null) $(grep -m1 sha256 "$dist/MANIFEST.txt")" | tee -a "$LOGDIR/ab.txt"
done
HQ=$(ls "$CLIPDIR"/hq422-grain-*.mov | grep -v -- '-x[0-9]*\.mov' | head -1)
XQ=$(ls "$CLIPDIR"/4444-alpha-*.mov | grep -v -- '-x[0-9]*\.mov' | head -1)
LOOPS=${LOOPS:-40}
LONG=${HQ%.mov}-x$LOOPS.mov
[ -s "$LONG" ] || "$B/ffmpeg" -v error -y -stream_loop $((LOOPS - 1)) -i "$HQ" -c copy "$LONG" || echo "cannot make $LONG" | tee -a "$LOGDIR/ab.txt"
echo "clips: $HQ $XQ $LONG" | tee -a "$LOGDIR/ab.txt"
TIMEFORMAT=%R
for round in $(seq "$ROUNDS"); do
  for side in A B; do
    pd=/tmp/ab-$side/prores-decode
    for clip in "$HQ" "$XQ"; do
      json=$(timeout 120 "$pd" bench "$clip" --decoders gpu --frames "$FRAMES" --json 2>/dev/null)
      fps=$(echo "$json" | grep -o '"fps":[0-9.]*' | head -1)
      parse=$(echo "$json" | grep -o '"cpu_parse":{"p50":[0-9.]*' | head -1 | grep -o '[0-9.]*$')
      stage=$(echo "$json" | grep -o '"cpu_stage":{"p50":[0-9.]*' | head -1 | grep -o '[0-9.]*$')
      echo "round $round $side bench $(basename "$clip") $fps cpu_parse_p50=$parse cpu_stage_p50=$stage" | tee -a "$LOGDIR/ab.txt"
    done
    for mode in "" "--vulkan"; do
      wall=$( { time timeout 120 "$pd" "$LONG" --decoder gpu $mode --quiet --json >"$LOGDIR/run-$side-$round${mode:+-vulkan}.json" 2>&1; } 2>&1 )
      fps=$(grep -o '"fps":[0-9.]*' "$LOGDIR/run-$side-$round${mode:+-vulkan}.json" | head -1)
      echo "round $round $side file --decoder gpu $mode: wall ${wall}s $fps" | tee -a "$LOGDIR/ab.txt"
    done
  done
done
