#!/usr/bin/env bash
# The decode engine's start-up and hashing figures, on a machine with a
# Vulkan GPU (docs/gpu-machine.md):
#
#   cd dist && ./device-engine.sh [LOGDIR]       from `make bundle`'s output (default LOGDIR ./out-engine)
#   PD=.build/release/prores-decode FF=ffmpeg scripts/device-engine.sh LOGDIR    from a checkout
#
# Every figure is a whole process's wall time, spawn to exit, the median of
# ROUNDS runs (the clip read once first, so it is in the page cache):
#   1. the first frame: `CLIP --frames 1` with the default decoder and with
#      --decoder gpu, and the default's phases (`bench --whole-process --phases`);
#   2. hashes of LONG (FRAMES frames of 4K 422 HQ looped LOOPS + 1 times):
#      --framemd5 (the native planes), --framehash, --format v216 --framehash,
#      --format y416 -o /dev/null, as frames a second;
#   3. `check` of FILES copies of the HQ clip against a golden file, as frames a second.
#
# LOGDIR gets summary.txt (everything printed), generate.txt and failures.txt.
# Environment: PD, FF (a prores-decode and an ffmpeg instead of the bundle's),
# SIZE (3840x2160), FRAMES (48), LOOPS (39: 1,920 frames), FILES (20),
# ROUNDS (5), CLIPDIR (/tmp/prores-clips).
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
LOGDIR=${1:-./out-engine}
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
: >"$LOGDIR/summary.txt"; : >"$LOGDIR/failures.txt"
SIZE=${SIZE:-3840x2160} FRAMES=${FRAMES:-48} LOOPS=${LOOPS:-39} FILES=${FILES:-20} ROUNDS=${ROUNDS:-5}
CLIPDIR=${CLIPDIR:-/tmp/prores-clips}
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
if [ -z "${PD:-}" ]; then
  [ -f "$HERE/prores-decode.gz" ] || { echo "no prores-decode.gz beside $0: run it from make bundle's dist/, or set PD and FF" >&2; exit 2; }
  use_bundle "$HERE"
fi
FF=${FF:-ffmpeg}
mkdir -p "$CLIPDIR"

log "$("$PD" --version | head -1), $(nproc) cores"
command -v nvidia-smi >/dev/null && log "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
use_nvidia_driver || log "no usable Vulkan device: the default decoder runs on the CPU and --decoder gpu fails"

# The clips: FRAMES frames of 4K 422 HQ with grain, that clip looped, and FILES copies of it in a folder.
graph="testsrc2=size=$SIZE:rate=25,format=yuv422p10le,noise=alls=24:allf=t+u,format=yuv422p10le"
HQ=$CLIPDIR/engine-hq-$SIZE-$FRAMES.mov
make_clip "$HQ" "$FRAMES" "$graph" -c:v prores_ks -profile:v hq -vendor apl0 || exit 1
LONG=${HQ%.mov}-x$((LOOPS + 1)).mov
[ -s "$LONG" ] || "$FF" -nostdin -v error -y -stream_loop "$LOOPS" -i "$HQ" -c copy "$LONG" || { fail "cannot loop $HQ"; exit 1; }
LONG_FRAMES=$((FRAMES * (LOOPS + 1)))
FOLDER=$CLIPDIR/engine-folder-$FILES
rm -rf "$FOLDER" && mkdir -p "$FOLDER"
for i in $(seq -w 1 "$FILES"); do ln -f "$HQ" "$FOLDER/hq-$i.mov" 2>/dev/null || cp "$HQ" "$FOLDER/hq-$i.mov"; done
GOLDEN=$LOGDIR/engine.golden
"$PD" check "$FOLDER" --policy none --write-golden "$GOLDEN" -y >/dev/null 2>>"$LOGDIR/failures.txt" || fail "check --write-golden"
cat "$HQ" "$LONG" "$FOLDER"/* >/dev/null

# median ARGS...: the median wall seconds of ROUNDS runs of one command line (its output discarded).
median() {
  local times=() round start end
  for round in $(seq "$ROUNDS"); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>>"$LOGDIR/failures.txt" || { fail "exit $?: $*"; return 1; }
    end=$(date +%s%N)
    times+=($((end - start)))
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((ROUNDS + 1) / 2))p" | awk '{printf "%.3f", $1 / 1e9}'
}
# rate LABEL FRAMES ARGS...: one line, the median time and frames a second.
rate() {
  local label=$1 frames=$2 seconds; shift 2
  seconds=$(median "$@") || return
  log "$(awk -v l="$label" -v s="$seconds" -v f="$frames" 'BEGIN {printf "%-34s %8.3f s  %8.0f fps", l, s, f / s}')"
}

section "first frame: $(basename "$HQ") --frames 1, whole process, median of $ROUNDS"
for decoder in auto gpu; do
  seconds=$(median "$PD" "$HQ" --decoder $decoder --frames 1 --quiet) &&
    log "$(awk -v l="--decoder $decoder" -v s="$seconds" 'BEGIN {printf "%-34s %8.1f ms", l, s * 1000}')"
done
"$PD" bench --whole-process --phases --rounds "$ROUNDS" -- "$HQ" --frames 1 --quiet 2>&1 |
  sed -n '/phases, median/,$p' | tee -a "$LOGDIR/summary.txt"
"$PD" "$HQ" --frames 1 --quiet --phases - 2>/dev/null | grep -o '"left_running_at_exit":\[[^]]*\]' | tee -a "$LOGDIR/summary.txt"

section "hashes: $(basename "$LONG"), $LONG_FRAMES frames, whole process, median of $ROUNDS"
rate "--framemd5 (native planes)" "$LONG_FRAMES" "$PD" "$LONG" --framemd5 /dev/null --quiet
rate "--framehash" "$LONG_FRAMES" "$PD" "$LONG" --framehash /dev/null --quiet
rate "--format v216 --framehash" "$LONG_FRAMES" "$PD" "$LONG" --format v216 --framehash /dev/null --quiet
rate "--format y416 -o /dev/null" "$LONG_FRAMES" "$PD" "$LONG" --format y416 -o /dev/null --quiet
rate "--decoder cpu --framemd5" "$LONG_FRAMES" "$PD" "$LONG" --decoder cpu --framemd5 /dev/null --quiet

section "check: $FILES files x $FRAMES frames against a golden file, whole process, median of $ROUNDS"
rate "check --golden" $((FILES * FRAMES)) "$PD" check "$FOLDER" --policy none --golden "$GOLDEN"

section "done: $FAILURES failure(s); logs in $LOGDIR"
exit $((FAILURES > 0))
