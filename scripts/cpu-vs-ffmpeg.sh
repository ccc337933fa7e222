#!/usr/bin/env bash
# The CPU decoder's benchmark, on a GPU machine's host: the CPU path against the CLI it
# wraps, whole process from a file in the page cache, same threads, on a
# long run (the 4K 422 HQ clip looped to 1,200 frames) and a short one (the
# 48-frame clip). Runs interleave ours / ffmpeg RUNS times; the log has every
# wall time (and user/sys CPU seconds), the medians and their ratio.
#
#   scripts/cpu-vs-ffmpeg.sh CLIP_DIR LOGDIR
#
# From the repo root with the bundle in dist/ (docs/gpu-machine.md): unpacks
# dist/prores-decode.gz, uses dist/ffmpeg (FFmpeg 5.1). The clip is made as
# scripts/device-decoder.sh makes it (CLIP_DIR/4k-hq.mov, reused when there).
# Environment: PD (our binary; default the unpacked bundle), FF (the ffmpeg
# CLI; default dist/ffmpeg), THREADS (16), FRAMES (1200), SHORT (48), RUNS
# (3), SIZE (3840x2160), PACKED=0 to leave out the third contender: ours
# with `--format v216`, the packing pass a run skips when nothing reads
# its frames.
set -u
CLIPDIR=${1:?usage: cpu-vs-ffmpeg.sh CLIP_DIR LOGDIR} LOGDIR=${2:?usage: cpu-vs-ffmpeg.sh CLIP_DIR LOGDIR}
THREADS=${THREADS:-16} FRAMES=${FRAMES:-1200} SHORT=${SHORT:-48} RUNS=${RUNS:-3}
SIZE=${SIZE:-3840x2160} PACKED=${PACKED:-1}
mkdir -p "$CLIPDIR" "$LOGDIR"
export SWIFT_BACKTRACE=enable=no
LOG=$LOGDIR/cpu-vs-ffmpeg.txt
log() { echo "$*" | tee -a "$LOG"; }
die() { log "cpu-vs-ffmpeg.sh: $*" >&2; exit 1; }
div() { awk -v a="$1" -v b="$2" -v d="${3:-3}" 'BEGIN { printf "%." d "f", a / b }'; }

if [ -z "${PD:-}" ]; then
  PD=/tmp/cpu-vs-ffmpeg/prores-decode
  mkdir -p "$(dirname "$PD")"
  gunzip -c dist/prores-decode.gz >"$PD" && chmod +x "$PD" || die "cannot unpack dist/prores-decode.gz"
  [ -f dist/MANIFEST.txt ] && log "bundle: $(grep -m1 '^source' dist/MANIFEST.txt) $(grep -m1 '^built' dist/MANIFEST.txt)"
fi
FF=${FF:-dist/ffmpeg}
[ -x "$PD" ] || die "no prores-decode at $PD"
command -v "$FF" >/dev/null || [ -x "$FF" ] || die "no ffmpeg CLI at $FF"
log "$(date -u +%FT%TZ) $(nproc) cores; threads $THREADS; median of $RUNS; ours: $("$PD" --version 2>&1 | head -1); ffmpeg: $("$FF" -version 2>&1 | head -1)"

# The 48-frame clip (device-decoder.sh's 4k-hq), then the long one by stream copy.
CLIP=$CLIPDIR/4k-hq.mov
[ "$SIZE" = 3840x2160 ] || CLIP=$CLIPDIR/hq-$SIZE.mov
[ -s "$CLIP" ] || { "$FF" -nostdin -v error -y -f lavfi -i "testsrc2=size=$SIZE:rate=25,format=yuv422p10le" \
    -vf "noise=alls=24:allf=t+u" -frames:v "$SHORT" -c:v prores_ks -profile:v hq -vendor apl0 "$CLIP.tmp.mov" \
    && mv "$CLIP.tmp.mov" "$CLIP"; } || die "cannot make $CLIP"
LONG=${CLIP%.mov}-$FRAMES.mov
[ -s "$LONG" ] || { "$FF" -nostdin -v error -y -stream_loop $(( (FRAMES + SHORT - 1) / SHORT )) -i "$CLIP" \
    -c copy -frames:v "$FRAMES" "$LONG.tmp.mov" && mv "$LONG.tmp.mov" "$LONG"; } || die "cannot make $LONG"

TIMEFORMAT='%3R %3U %3S'
# timed LABEL CMD...: one run; prints "wall user sys" and logs them.
timed() {
  local label=$1 t status; shift
  t=$( { time "$@" >/dev/null 2>"$LOGDIR/last-err.txt"; } 2>&1 ); status=$?
  [ $status -eq 0 ] || die "$label failed (exit $status): $(tail -1 "$LOGDIR/last-err.txt")"
  echo "$t"
}
median() { sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"; }

compare() { # CLIP FRAMES
  local clip=$1 frames=$2 kinds="ours ffmpeg" kind r t
  [ "$PACKED" = 1 ] && kinds="ours ffmpeg ours-v216"
  cat "$clip" >/dev/null  # the page cache, for every contender alike
  log "$(basename "$clip"): $frames frames, $(( $(stat -L -c %s "$clip") / frames / 1000 )) kB/frame"
  declare -A walls=()
  for r in $(seq "$RUNS"); do
    for kind in $kinds; do
      case $kind in
        ours) t=$(timed "$kind" "$PD" "$clip" --decoder cpu --threads "$THREADS" --quiet) ;;
        ours-v216) t=$(timed "$kind" "$PD" "$clip" --decoder cpu --threads "$THREADS" --quiet --format v216) ;;
        ffmpeg) t=$(timed "$kind" "$FF" -nostdin -v error -threads "$THREADS" -i "$clip" -f null -) ;;
      esac || exit 1
      log "  run $r $kind: wall ${t%% *} s (user, sys: ${t#* } s)"
      walls[$kind]+="${t%% *} "
    done
  done
  local ours ffmpeg
  ours=$(echo "${walls[ours]}" | tr ' ' '\n' | grep . | median)
  ffmpeg=$(echo "${walls[ffmpeg]}" | tr ' ' '\n' | grep . | median)
  log "  median: ours $ours s ($(div "$frames" "$ours" 1) fps), ffmpeg -f null $ffmpeg s ($(div "$frames" "$ffmpeg" 1) fps): ours/ffmpeg time $(div "$ours" "$ffmpeg") (target <= 1)"
  if [ "$PACKED" = 1 ]; then
    local packed
    packed=$(echo "${walls[ours-v216]}" | tr ' ' '\n' | grep . | median)
    log "  median: ours --format v216 $packed s: $(div "$packed" "$ffmpeg") of ffmpeg's time"
  fi
}
compare "$LONG" "$FRAMES"
compare "$CLIP" "$SHORT"
