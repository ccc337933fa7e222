#!/usr/bin/env bash
# The benchmark set, on a machine with a Vulkan GPU (docs/gpu-machine.md):
#
#   cd dist && ./gpu-machine.sh [LOGDIR]        from `make bundle`'s output (default LOGDIR ./out)
#   PD=.build/release/prores-decode FF=ffmpeg scripts/gpu-machine.sh LOGDIR    from a checkout
#
# 1. bit-exactness: every fixture against Fixtures/ref, and the GPU decoder
#    against our CPU decoder (per-frame md5 in native, v216 and y416) and
#    both against FFmpeg's decoder (native) on the fixtures, the
#    encoder-variant matrix (prores-variants.sh) and the clips of step 2;
# 2. clips: FRAMES frames at SIZE of each profile in PROFILES, made with FF;
# 3. `bench` of each profile in memory: FFmpeg's, our CPU and the GPU decoder;
# 4. whole processes (`bench --whole-process`): the HQ clip looped to a long
#    file, decoded with --decoder gpu, the default and --decoder cpu, against
#    FF's software decoder and, with FFMPEG_VULKAN, FFmpeg's Vulkan decoder;
# 5. `check` of a folder of every profile's clip, GPU against CPU decoder.
#
# LOGDIR gets summary.txt (everything printed), exactness.txt, bench.html,
# whole-*.html, check.json, failures.txt and generate.txt. Exit status 0
# when every check passed and every command ran.
#
# Environment: PD, FF (a prores-decode and an ffmpeg to use instead of the
# bundle's), FFMPEG_VULKAN (an FFmpeg with the prores_vulkan hwaccel, 8.1 or
# later), SIZE (3840x2160), FRAMES (48), PROFILES (proxy lt standard hq 4444
# 4444xq), ROUNDS (5), LOOPS (24: the long file holds LOOPS + 1 copies),
# BENCH_FRAMES (1200), THREADS (nproc), CLIPDIR (/tmp/prores-clips),
# FIXTURES (names in Fixtures/; default all), SKIP_VARIANTS=1, REQUIRE_GPU=1.
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
LOGDIR=${1:-./out}
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
: >"$LOGDIR/summary.txt"; : >"$LOGDIR/failures.txt"; : >"$LOGDIR/exactness.txt"
SIZE=${SIZE:-3840x2160} FRAMES=${FRAMES:-48} ROUNDS=${ROUNDS:-5} LOOPS=${LOOPS:-24}
BENCH_FRAMES=${BENCH_FRAMES:-1200} THREADS=${THREADS:-$(nproc)} CLIPDIR=${CLIPDIR:-/tmp/prores-clips}
PROFILES=${PROFILES:-proxy lt standard hq 4444 4444xq}
# A crash must end the process at once, not wait for the Swift runtime's backtracer.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
if [ -z "${PD:-}" ]; then
  [ -f "$HERE/prores-decode.gz" ] || { echo "no prores-decode.gz beside $0: run it from make bundle's dist/, or set PD and FF" >&2; exit 2; }
  use_bundle "$HERE"
fi
FF=${FF:-ffmpeg}
FIXTURES_DIR=$HERE/Fixtures
[ -d "$FIXTURES_DIR" ] || FIXTURES_DIR=$HERE/../Fixtures
mkdir -p "$CLIPDIR"

section "machine"
log "date: $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
log "os: $( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null), kernel $(uname -r)"
command -v nvidia-smi >/dev/null && log "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | head -1)"
[ -f "$HERE/MANIFEST.txt" ] && log "bundle: $(sed -n 2p "$HERE/MANIFEST.txt")"
log "$("$PD" --version | head -1)"
if use_nvidia_driver; then
  "$PD" devices 2>&1 | tee -a "$LOGDIR/summary.txt"
else
  log "no usable Vulkan device: the GPU steps are skipped"
  [ "${REQUIRE_GPU:-0}" = 1 ] && fail "no usable Vulkan device (REQUIRE_GPU=1)"
  GPU=0
fi
GPU=${GPU:-1}

# --- 2. clips ---------------------------------------------------------------------------
section "clips: $FRAMES frames at $SIZE of $PROFILES"
declare -A CLIP
for profile in $PROFILES; do
  case $profile in
    4444) format=yuva444p10le extra=(-alpha_bits 16) ;;   # with a 16-bit alpha ramp
    4444xq) format=yuv444p10le extra=() ;;
    *) format=yuv422p10le extra=() ;;
  esac
  graph="testsrc2=size=$SIZE:rate=25,format=$format,noise=alls=24:allf=t+u,format=$format"
  # prores_ks codes noisy alpha almost losslessly (~30 MB a 4K frame): the alpha clip has no grain.
  [ "$profile" = 4444 ] && graph="testsrc2=size=$SIZE:rate=25,format=$format,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='clip(1023*X/W+8*N,0,1023)'"
  CLIP[$profile]=$CLIPDIR/$profile-$SIZE-$FRAMES-$(printf '%s' "$graph" | cksum | cut -d' ' -f1).mov
  make_clip "${CLIP[$profile]}" "$FRAMES" "$graph" -c:v prores_ks -profile:v "$profile" -vendor apl0 "${extra[@]}" &&
    log "$profile: ${CLIP[$profile]}, $(( $(stat -c %s "${CLIP[$profile]}") / FRAMES / 1000 )) kB a frame"
done

# --- 1. bit-exactness ---------------------------------------------------------------------
section "bit-exactness"
# frame_sums CLIP FORMAT DECODER: the md5 of a decoder's per-frame md5 column.
frame_sums() {
  timeout 300 "$PD" "$1" --decoder "$3" --format "$2" --framemd5 - --quiet 2>>"$LOGDIR/failures.txt" | md5col /dev/stdin | md5sum
}
# same_frames CLIP FORMAT: the GPU decoder's frames equal our CPU decoder's,
# and in the native format both equal FFmpeg's decoder's.
same_frames() {
  local cpu
  cpu=$(frame_sums "$1" "$2" cpu)
  [ "$cpu" = "$(frame_sums "$1" "$2" gpu)" ] || return 1
  [ "$2" != native ] || [ "$cpu" = "$(frame_sums "$1" "$2" ffmpeg)" ]
}
passed=0 total=0
clips=()
for name in ${FIXTURES:-$(cd "$FIXTURES_DIR" && ls *.mov *.mxf *.prores 2>/dev/null)}; do clips+=("$FIXTURES_DIR/$name"); done
for clip in "${clips[@]}"; do
  ref=$FIXTURES_DIR/ref/$(basename "$clip").framemd5
  [ -f "$ref" ] || continue
  total=$((total + 1))
  if diff -q <(md5col "$ref") <("$PD" "$clip" --decoder cpu --format native --framemd5 - --quiet 2>/dev/null | md5col /dev/stdin) >/dev/null; then
    passed=$((passed + 1)); echo "PASS ref $(basename "$clip")" >>"$LOGDIR/exactness.txt"
  else
    fail "$(basename "$clip"): the CPU decoder's frames differ from Fixtures/ref"
  fi
done
log "fixtures against Fixtures/ref: $passed/$total"
if [ "$GPU" = 1 ]; then
  if [ "${SKIP_VARIANTS:-0}" != 1 ]; then
    "$HERE/prores-variants.sh" "$CLIPDIR/variants" "$FF" >/dev/null 2>>"$LOGDIR/generate.txt" || fail "prores-variants.sh (generate.txt)"
    clips+=("$CLIPDIR"/variants/*.mov)
  fi
  for profile in $PROFILES; do clips+=("${CLIP[$profile]}"); done
  passed=0 total=0
  for clip in "${clips[@]}"; do
    [ -s "$clip" ] || continue
    total=$((total + 1)) verdict=PASS detail=""
    for format in native v216 y416; do
      if same_frames "$clip" $format; then detail+=" $format:ok"; else verdict=FAIL detail+=" $format:DIFF"; fi
    done
    echo "$verdict gpu=cpu $(basename "$clip"):$detail" >>"$LOGDIR/exactness.txt"
    if [ $verdict = PASS ]; then passed=$((passed + 1)); else fail "GPU decoder differs on $clip:$detail"; fi
  done
  log "GPU decoder = our CPU decoder (native, v216, y416) = FFmpeg's (native): $passed/$total clips"
fi

# --- 3. in memory -------------------------------------------------------------------------
section "bench: FFmpeg's and our CPU decoder ($THREADS threads) against the GPU decoder, $BENCH_FRAMES frames in memory"
inputs=()
for profile in $PROFILES; do [ -s "${CLIP[$profile]}" ] && inputs+=("${CLIP[$profile]}"); done
decoders=ffmpeg,cpu
[ "$GPU" = 1 ] && decoders=ffmpeg,cpu,gpu
timeout 900 "$PD" bench "${inputs[@]}" --decoders $decoders --frames "$BENCH_FRAMES" --threads "$THREADS" \
  --html "$LOGDIR/bench.html" -y 2>&1 | tee -a "$LOGDIR/summary.txt"
[ "${PIPESTATUS[0]}" = 0 ] || fail "bench in memory"

# --- 4. whole processes -------------------------------------------------------------------
# whole NAME COMPARE-LINE PRORES-DECODE-ARGS...: one bench --whole-process; its page is LOGDIR/NAME.html.
whole() {
  local name=$1 compare=$2; shift 2
  log "--- $name"
  timeout 1800 "$PD" bench --whole-process --rounds "$ROUNDS" --html "$LOGDIR/$name.html" -y --compare "$compare" -- "$@" 2>&1 |
    tee -a "$LOGDIR/summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || fail "bench --whole-process: $name"
}
HQ=${CLIP[hq]:-${CLIP[${PROFILES%% *}]}}
LONG=${HQ%.mov}-x$((LOOPS + 1)).mov
[ -s "$LONG" ] || "$FF" -nostdin -v error -y -stream_loop "$LOOPS" -i "$HQ" -c copy "$LONG" || fail "cannot loop $HQ"
cat "$LONG" >/dev/null   # in the page cache, as for every later run
section "whole processes: $(basename "$LONG"), $((FRAMES * (LOOPS + 1))) frames, $ROUNDS rounds (A B, A B, ...)"
ours=("--decoder cpu --threads $THREADS")
[ "$GPU" = 1 ] && ours=("--decoder gpu" "" "--decoder cpu --threads $THREADS")
for args in "${ours[@]}"; do
  label=${args:-default}; label=${label//--decoder /}; label=${label%% *}
  whole "whole-$label-ffmpeg-cpu" "'$FF' -nostdin -v error -threads $THREADS -i '$LONG' -f null -" "$LONG" $args --quiet
  if [ -n "${FFMPEG_VULKAN:-}" ] && [ "$GPU" = 1 ]; then
    whole "whole-$label-ffmpeg-vulkan" "'$FFMPEG_VULKAN' -nostdin -v error -hwaccel vulkan -hwaccel_output_format vulkan -i '$LONG' -f null -" \
      "$LONG" $args --quiet
  fi
done
[ -n "${FFMPEG_VULKAN:-}" ] || log "(FFMPEG_VULKAN unset: no comparison with FFmpeg's Vulkan decoder)"

# --- 5. check of a folder -----------------------------------------------------------------
FOLDER=$CLIPDIR/folder
rm -rf "$FOLDER" && mkdir -p "$FOLDER"
for profile in $PROFILES; do for copy in a b c; do ln -f "${CLIP[$profile]}" "$FOLDER/$profile-$copy.mov" 2>/dev/null; done; done
section "check of $(ls "$FOLDER" | wc -l) files ($FOLDER)"
if [ "$GPU" = 1 ]; then
  timeout 600 "$PD" check "$FOLDER" --policy none --decoder gpu --report "$LOGDIR/check.json" -y 2>&1 | tail -1 | tee -a "$LOGDIR/summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || fail "check --decoder gpu"
  whole whole-check "'$PD' check '$FOLDER' --policy none --decoder cpu" check "$FOLDER" --policy none --decoder gpu
else
  timeout 600 "$PD" check "$FOLDER" --policy none --decoder cpu --report "$LOGDIR/check.json" -y 2>&1 | tail -1 | tee -a "$LOGDIR/summary.txt"
  [ "${PIPESTATUS[0]}" = 0 ] || fail "check --decoder cpu"
fi

section "done: $FAILURES failure(s); logs in $LOGDIR"
exit $((FAILURES > 0))
