#!/usr/bin/env bash
# GPU cost of each --effect at 4K: runs prores-decode --vulkan once per effect
# (and once with all of them chained) on a generated 3840x2160 ProRes clip and
# prints, per effect, the GPU milliseconds per frame from the per-frame timing
# JSON (its "effects_us" timestamps), beside the conversion's own
# "gpu_convert_us"; then one --realtime run of the chain at the clip's 25 fps.
#
#   scripts/bench-effects.sh [LOGDIR]          from the checkout (make build first)
#   cd dist && ./bench-effects.sh [LOGDIR]     from the bundle (make bundle), on a GPU machine
#
# LOGDIR (default ./out-effects) gets two files, effects.txt (what is
# printed) and effects.json; the clip,
# the LUT and the timing logs stay in CLIPDIR. The first WARMUP frames of each
# run are left out (the first frame also uploads the LUT). Numbers are medians
# (and means) over the remaining frames of one run each.
#
# Environment: FRAMES (48), SIZE (3840x2160), LAYOUT (v216: the 422 clip's
# native layout; y416 converts on the CPU first), LUT_SIZE (33), WARMUP (3),
# THREADS (nproc), CLIPDIR (/tmp/prores-bench), BIN_DIR (/tmp/prores-bundle),
# PD (a prores-decode to use), FF (an ffmpeg to use).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
LOGDIR=${1:-./out-effects}
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
FRAMES=${FRAMES:-48}
SIZE=${SIZE:-3840x2160}
LAYOUT=${LAYOUT:-v216}
LUT_SIZE=${LUT_SIZE:-33}
WARMUP=${WARMUP:-3}
THREADS=${THREADS:-$(nproc)}
CLIPDIR=${CLIPDIR:-/tmp/prores-bench}
BIN_DIR=${BIN_DIR:-/tmp/prores-bundle}
exec > >(tee "$LOGDIR/effects.txt") 2>&1

. "$HERE/lib.sh"
# prores-decode and ffmpeg: the bundle's, else the checkout's.
[ -z "${PD:-}" ] && [ -f "$HERE/prores-decode.gz" ] && use_bundle "$HERE"
PD=${PD:-$HERE/../.build/release/prores-decode}
if [ -z "${FF:-}" ]; then
  if [ -x "$HERE/ffmpeg" ]; then FF=$HERE/ffmpeg; else FF=$(command -v ffmpeg || echo ffmpeg); fi
fi
[ -d "$HERE/Shaders" ] && export PRORES_DECODE_SHADERS=$HERE/Shaders
# A crash must end the process at once, not wait in the Swift backtracer.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
[ -x "$PD" ] || { echo "bench-effects.sh: no prores-decode at $PD (make build, or run from dist/)" >&2; exit 2; }
command -v "$FF" >/dev/null || { echo "bench-effects.sh: no ffmpeg ($FF)" >&2; exit 2; }

use_nvidia_driver
"$PD" devices || { echo "bench-effects.sh: no usable Vulkan device" >&2; exit 8; }

WORK=$CLIPDIR/effects-work
mkdir -p "$CLIPDIR" "$WORK"
CLIP=$CLIPDIR/effects-hq422-$SIZE-$FRAMES.mov
if [ ! -s "$CLIP" ]; then
  echo "generating $CLIP ($FRAMES frames of $SIZE ProRes 422 HQ, BT.709)..."
  "$FF" -hide_banner -v error -y -f lavfi -i "testsrc2=size=$SIZE:rate=25,format=yuv422p10le" -frames:v "$FRAMES" \
    -c:v prores_ks -profile:v hq -vendor apl0 -color_primaries bt709 -color_trc bt709 -colorspace bt709 "$CLIP.tmp.mov" &&
    mv "$CLIP.tmp.mov" "$CLIP" || { echo "bench-effects.sh: generating the clip failed" >&2; exit 1; }
fi

# A 33³ "look" LUT for PQ-encoded P3: a gentle S-curve on each channel plus a warm tilt.
LUT=$WORK/look-$LUT_SIZE.cube
awk -v n="$LUT_SIZE" 'BEGIN {
  print "TITLE \"bench look\""; print "LUT_3D_SIZE " n
  for (b = 0; b < n; b++) for (g = 0; g < n; g++) for (r = 0; r < n; r++) {
    split(r " " g " " b, c, " ")
    for (i = 1; i <= 3; i++) { x = c[i] / (n - 1); c[i] = x + 0.05 * sin(6.2831853 * x) }
    printf "%.6f %.6f %.6f\n", c[1] * 1.02, c[2], c[3] * 0.97
  }
}' >"$LUT"

EFFECTS=("sepia" "exposure:1" "saturation:1.3" "chroma-key:color=0,1,0" "lut:$LUT" "lut:$LUT,shaper=linear")

# median and mean of column COL (1-based) of comma-separated lines on stdin, after WARMUP lines
stats() {
  tail -n +"$((WARMUP + 1))" | cut -d, -f"$1" | sort -g | awk '{ v[NR] = $1; s += $1 } END {
    if (NR == 0) { print "- -"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f %.3f\n", m / 1000, s / NR / 1000 }'
}
convert_column() { sed -n 's/.*"gpu_convert_us":\([^,}]*\).*/\1/p' "$1"; }
effect_columns() { sed -n 's/.*"effects_us":\[\([^]]*\)\].*/\1/p' "$1"; }

echo
echo "prores-decode --vulkan --format $LAYOUT on $CLIP ($FRAMES frames, $SIZE); GPU ms/frame, median (mean), first $WARMUP frames left out"
printf '%-58s %16s %16s\n' "effect" "effect GPU ms" "convert GPU ms"
json_rows=()
run() { # NAME TIMING-FILE EFFECT-ARGS...
  local name=$1 timing=$2; shift 2
  if ! "$PD" "$CLIP" --vulkan --format "$LAYOUT" --threads "$THREADS" --quiet --timing "$timing" --overwrite "$@" 2>"$timing.err"; then
    echo "FAILED: $name ($(tail -1 "$timing.err"))"
    return 1
  fi
}
i=0
for effect in "${EFFECTS[@]}"; do
  i=$((i + 1))
  timing=$WORK/timing-$i.jsonl
  run "$effect" "$timing" --effect "$effect" || continue
  read -r em ea < <(effect_columns "$timing" | stats 1)
  read -r cm ca < <(convert_column "$timing" | stats 1)
  printf '%-58s %16s %16s\n' "${effect/$WORK\//}" "$em ($ea)" "$cm ($ca)"
  json_rows+=("{\"effect\":\"${effect/$WORK\//}\",\"gpu_ms_median\":$em,\"gpu_ms_mean\":$ea,\"convert_ms_median\":$cm}")
done

echo
echo "all chained, in this order (one --effect each):"
chain_args=()
for effect in "${EFFECTS[@]}"; do chain_args+=(--effect "$effect"); done
timing=$WORK/timing-chain.jsonl
if run chain "$timing" "${chain_args[@]}"; then
  for k in $(seq ${#EFFECTS[@]}); do
    read -r em ea < <(effect_columns "$timing" | stats "$k")
    printf '  %-56s %16s\n' "${EFFECTS[$((k - 1))]/$WORK\//}" "$em ($ea)"
  done
  total=$(sed -n 's/.*"gpu_effects_us":\([^,}]*\).*/\1/p' "$timing" | stats 1)
  printf '  %-56s %16s\n' "total (gpu_effects)" "${total% *} (${total#* })"
fi

echo
echo "--realtime at the clip's 25 fps with the whole chain:"
realtime=$("$PD" "$CLIP" --vulkan --format "$LAYOUT" --threads "$THREADS" --quiet --realtime --json "${chain_args[@]}" 2>"$WORK/realtime.err" |
  sed -n 's/.*"realtime":\({[^}]*}[^}]*}\).*/\1/p')
echo "  ${realtime:-FAILED ($(tail -1 "$WORK/realtime.err"))}"

{
  printf '{"clip":"%s","frames":%s,"size":"%s","layout":"%s","warmup":%s,"device":"%s","effects":[' \
    "$(basename "$CLIP")" "$FRAMES" "$SIZE" "$LAYOUT" "$WARMUP" "$("$PD" devices 2>/dev/null | head -1 | sed 's/"//g')"
  (IFS=,; printf '%s' "${json_rows[*]}")
  printf '],"realtime":%s}\n' "${realtime:-null}"
} >"$LOGDIR/effects.json"
echo
echo "results in $LOGDIR (effects.txt, effects.json); timing logs in $WORK"
