#!/usr/bin/env bash
# Issue #14's file run against FFmpeg's own Vulkan ProRes decoder, in one
# call ON the lent GPU machine: 1,200 frames of 4K 422 HQ with grain (the
# 48-frame clip looped by stream copy, in the page cache), each a whole
# process, interleaved round by round:
#   ours-gpu    prores-decode FILE --decoder gpu
#   ours-auto   prores-decode FILE            (the default, --decoder auto)
#   ff-vk-dev   ffmpeg -hwaccel vulkan -hwaccel_output_format vulkan -f null
#               (frames stay on the GPU, like ours)
#   ff-vk       ffmpeg -hwaccel vulkan -f null  (frames downloaded, as a
#               plain `-hwaccel vulkan` run does)
# then medians and ratios. First it checks that FFmpeg really decodes on the
# NVIDIA GPU and that its frames equal its CPU decoder's (framemd5 of the
# 48-frame clip), so a silent fallback cannot pass for a GPU run.
#
#   scripts/device-ffmpeg-vulkan.sh DIST FFMPEG_VULKAN LOGDIR
#
# FFMPEG_VULKAN: an FFmpeg 8.1.2 CLI with the prores_vulkan hwaccel (how it
# is built: docs/DEVICE.md, "FFmpeg's Vulkan decoder"). Environment: ROUNDS
# (5), CLIPDIR (/tmp/prores-ffvk), SIZE (3840x2160) and LOOPS (24: the file
# holds LOOPS + 1 copies of the clip) to try it small on lavapipe;
# SKIP_DOWNLOAD=1 leaves out ff-vk (~15 s a run on the H200); VARIANT
# ("NAME=VALUE[,NAME=VALUE...]") adds ours-gpu-v and ours-auto-v to every
# round, the same bundle with those settings, so a switch is timed against
# the default and FFmpeg in one block.
set -u
D=$1 FFVK=$2 LOGDIR=$3
ROUNDS=${ROUNDS:-5} SIZE=${SIZE:-3840x2160} LOOPS=${LOOPS:-24}
CLIPDIR=${CLIPDIR:-/tmp/prores-ffvk}
mkdir -p "$LOGDIR" "$CLIPDIR" /tmp/ffvk-bin
export SWIFT_BACKTRACE=enable=no
log() { echo "$*" | tee -a "$LOGDIR/ffmpeg-vulkan.txt"; }
now() { date +%s.%N; }

gunzip -c "$D/prores-decode.gz" >/tmp/ffvk-bin/prores-decode && chmod +x /tmp/ffvk-bin/prores-decode
rm -rf /tmp/ffvk-bin/Shaders && cp -r "$D/Shaders" /tmp/ffvk-bin/
PD=/tmp/ffvk-bin/prores-decode FF=$D/ffmpeg
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! $PD devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
log "ours: $(grep -m1 '^source' "$D/MANIFEST.txt") $(grep -m1 '^built' "$D/MANIFEST.txt")"
log "theirs: $("$FFVK" -hide_banner -version | head -1)"
log "device: $($PD devices 2>&1 | grep -i -m1 nvidia)"

CLIP=$CLIPDIR/hq-$SIZE.mov LONG=$CLIPDIR/hq-$SIZE-x$((LOOPS + 1)).mov
[ -s "$CLIP" ] || "$FF" -nostdin -v error -y -f lavfi -i "testsrc2=size=$SIZE:rate=25,format=yuv422p10le" \
  -vf "noise=alls=24:allf=t+u" -frames:v 48 -c:v prores_ks -profile:v hq -vendor apl0 "$CLIP"
[ -s "$LONG" ] || "$FF" -nostdin -v error -y -stream_loop "$LOOPS" -i "$CLIP" -c copy "$LONG"
cat "$LONG" >/dev/null
log "file: $LONG, $(stat -c %s "$LONG") bytes"

# FFmpeg's Vulkan decoder: on which device, and are its frames its CPU decoder's?
"$FFVK" -nostdin -hide_banner -v verbose -hwaccel vulkan -hwaccel_output_format vulkan -i "$CLIP" -frames:v 1 -f null - \
  >"$LOGDIR/ffvk-verbose.txt" 2>&1
log "ffmpeg vulkan device: $(grep -m1 'selected' "$LOGDIR/ffvk-verbose.txt")"
"$FFVK" -nostdin -v error -hwaccel vulkan -i "$CLIP" -pix_fmt yuv422p10le -f framemd5 "$LOGDIR/ffvk.md5" 2>"$LOGDIR/ffvk-md5-err.txt"
"$FFVK" -nostdin -v error -i "$CLIP" -pix_fmt yuv422p10le -f framemd5 "$LOGDIR/ffcpu.md5" 2>>"$LOGDIR/ffvk-md5-err.txt"
frames_vk=$(grep -vc '^#' "$LOGDIR/ffvk.md5" 2>/dev/null) frames_cpu=$(grep -vc '^#' "$LOGDIR/ffcpu.md5" 2>/dev/null)
if [ "${frames_vk:-0}" -gt 0 ] && diff -q <(grep -v '^#' "$LOGDIR/ffvk.md5") <(grep -v '^#' "$LOGDIR/ffcpu.md5") >/dev/null; then
  log "ffmpeg vulkan frames equal its CPU decoder's: $frames_vk of $frames_cpu"
else
  log "ffmpeg vulkan frames DIFFER from its CPU decoder's ($frames_vk vs $frames_cpu frames): $(head -c 300 "$LOGDIR/ffvk-md5-err.txt")"
fi

TIMEFORMAT=%R
run() { # LABEL COMMAND...: whole-process wall seconds; the output goes to LOGDIR/LABEL.out
  local label=$1; shift
  local t0 t1 rc
  t0=$(now); "$@" >"$LOGDIR/$label.out" 2>&1; rc=$?; t1=$(now)
  local wall; wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  # A failed run is no time at all: it stays out of the medians.
  [ "$rc" = 0 ] && echo "$wall" >>"$LOGDIR/$label.walls"
  # Ours: the run's fps, and when the device was ready and the first frame
  # came (ms after the process began): the host's driver start moves the
  # whole process more than anything of ours (BENCHMARKS.md §7).
  log "round $round $label: exit $rc$([ "$rc" = 0 ] || echo ' FAILED'), wall $wall s $(grep -o '"device_ready":[0-9.]*\|"first_frame_ms":[0-9.]*\|"fps":[0-9.]*' "$LOGDIR/$label.out" | tail -3 | paste -sd' ')"
}
for round in $(seq "$ROUNDS"); do
  run ours-gpu timeout 120 "$PD" "$LONG" --decoder gpu --quiet --json
  run ff-vk-dev timeout 120 "$FFVK" -nostdin -v error -hwaccel vulkan -hwaccel_output_format vulkan -i "$LONG" -f null -
  run ours-auto timeout 120 "$PD" "$LONG" --quiet --json
  if [ -n "${VARIANT:-}" ]; then
    run ours-gpu-v env ${VARIANT//,/ } timeout 120 "$PD" "$LONG" --decoder gpu --quiet --json
    run ours-auto-v env ${VARIANT//,/ } timeout 120 "$PD" "$LONG" --quiet --json
  fi
  [ -n "${SKIP_DOWNLOAD:-}" ] || run ff-vk timeout 120 "$FFVK" -nostdin -v error -hwaccel vulkan -i "$LONG" -f null -
done
median_of() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; } # of stdin's numbers
median() { [ -s "$LOGDIR/$1.walls" ] || { echo nan; return; }; median_of <"$LOGDIR/$1.walls"; }
[ -z "${VARIANT:-}" ] || log "variant (ours-*-v): $VARIANT"
for label in ours-gpu ours-auto ${VARIANT:+ours-gpu-v ours-auto-v} ff-vk-dev ff-vk; do log "median $label: $(median $label) s ($(paste -sd' ' "$LOGDIR/$label.walls" 2>/dev/null))"; done
for ours in ours-gpu ours-auto ${VARIANT:+ours-gpu-v ours-auto-v}; do
  for theirs in ff-vk-dev ff-vk; do
    log "ratio $theirs / $ours: $(awk -v a="$(median $theirs)" -v b="$(median $ours)" 'BEGIN { printf "%.2f", a / b }')x"
  done
  # Round by round (the two runs seconds apart), which a host that drifts
  # within the block moves less; only when no run of either failed.
  if [ -s "$LOGDIR/$ours.walls" ] && [ -s "$LOGDIR/ff-vk-dev.walls" ] \
     && [ "$(wc -l <"$LOGDIR/$ours.walls")" = "$(wc -l <"$LOGDIR/ff-vk-dev.walls")" ]; then
    paste "$LOGDIR/ff-vk-dev.walls" "$LOGDIR/$ours.walls" | awk '{ printf "%.3f\n", $1 / $2 }' >"$LOGDIR/$ours.ratios"
    log "per-round ratio ff-vk-dev / $ours: median $(median_of <"$LOGDIR/$ours.ratios" | awk '{ printf "%.2f", $1 }')x, $(awk '$1 >= 5' "$LOGDIR/$ours.ratios" | wc -l) of $(wc -l <"$LOGDIR/$ours.ratios") rounds >= 5x"
  fi
done
