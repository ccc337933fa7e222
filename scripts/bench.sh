#!/usr/bin/env bash
# Benchmark (`make bench`): prores-decode's CPU path against the ffmpeg CLI
# doing the same work with the same threads, on a 4K 422 HQ clip with grain,
# as whole processes timed by `prores-decode bench --whole-process`
# (interleaved rounds, medians, the ratio of the medians); then the packing
# layouts against the native planes the same way; then `prores-decode bench`
# of the decoders on the clip held in memory.
#
#   scripts/bench.sh [--frames N] [--threads N] [--runs N]
#
# DECODER (default cpu, ours; ffmpeg for FFmpeg's decoder through us) picks
# the CPU path; SKIP_GPU=1 leaves the GPU decoder out of the in-memory bench;
# SIZE (3840x2160) and BIN (.build/release/prores-decode) as named. The clip
# is generated once into bench-cache/ (not committed).
set -euo pipefail
cd "$(dirname "$0")/.."

FRAMES=48
DECODER=${DECODER:-cpu}
THREADS=$(nproc)
RUNS=3
while [ $# -gt 0 ]; do
  case "$1" in
    --frames) FRAMES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    *) echo "bench.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done

BIN=${BIN:-.build/release/prores-decode}
[ -x "$BIN" ] || { echo "bench.sh: $BIN missing; run 'make build' first" >&2; exit 2; }
command -v ffmpeg >/dev/null || { echo "bench.sh: ffmpeg CLI missing (apt-get install ffmpeg)" >&2; exit 2; }

mkdir -p bench-cache
SIZE=${SIZE:-3840x2160}
CLIP=bench-cache/hq-grain-$SIZE-$FRAMES.mov
if [ ! -s "$CLIP" ]; then
  echo "generating $CLIP ($FRAMES frames of $SIZE ProRes 422 HQ with temporal grain)..." >&2
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=$SIZE:rate=25,format=yuv422p10le" \
    -vf "noise=alls=24:allf=t+u" -frames:v "$FRAMES" \
    -c:v prores_ks -profile:v hq -vendor apl0 "$CLIP.tmp.mov"
  mv "$CLIP.tmp.mov" "$CLIP"
fi
echo "clip: $CLIP, $FRAMES frames, $(( $(stat -c %s "$CLIP") / FRAMES / 1000 )) kB a frame; $THREADS threads; $RUNS rounds each"

OURS=("$CLIP" --decoder "$DECODER" --threads "$THREADS" --quiet)
# compare TITLE OTHER-COMMAND-LINE OUR-ARGUMENTS...: B is the other command, A ours.
compare() {
  local title=$1 other=$2; shift 2
  echo
  echo "== $title"
  "$BIN" bench --whole-process --rounds "$RUNS" --compare "$other" -- "$@"
}
compare "decode only: ffmpeg -f null - (B) against prores-decode --format native (A)" \
  "ffmpeg -nostdin -v error -threads $THREADS -i $CLIP -f null -" "${OURS[@]}" --format native
compare "decode and write: ffmpeg -f rawvideo (B) against prores-decode -o /dev/null (A)" \
  "ffmpeg -nostdin -v error -threads $THREADS -i $CLIP -f rawvideo -y /dev/null" "${OURS[@]}" --format native -o /dev/null
for layout in v216 y416; do
  compare "packing: --format native (B) against --format $layout (A); below 1 is the layout's cost" \
    "$BIN ${OURS[*]} --format native" "${OURS[@]}" --format "$layout"
done

echo
echo "== in memory: the decoders on the same frames, one process"
decoders=ffmpeg,cpu
[ "${SKIP_GPU:-0}" = 1 ] || decoders=ffmpeg,cpu,gpu
"$BIN" bench "$CLIP" --decoders "$decoders" --frames "${BENCH_FRAMES:-$((FRAMES * 4))}" --threads "$THREADS" ||
  { echo "bench.sh: prores-decode bench failed (no Vulkan device? SKIP_GPU=1 leaves the GPU out)" >&2; exit 1; }
