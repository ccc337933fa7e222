#!/usr/bin/env bash
# Benchmark: prores-decode's CPU path against the ffmpeg CLI doing the same
# work with the same threads, in one run, on a 4K 422 HQ clip with grain;
# then `prores-decode bench`: the GPU decoder against the CPU path.
#
#   scripts/bench.sh [--frames N] [--threads N] [--runs N] [--json FILE]
#
# DECODER (default cpu, ours; ffmpeg for FFmpeg's decoder through us) picks
# the CPU path. The clip is generated once into bench-cache/ (not committed). Each
# measurement is the median wall time of --runs runs; ratios compare
# medians taken in this same run, so machine speed cancels out.
set -euo pipefail
cd "$(dirname "$0")/.."

FRAMES=48
DECODER=${DECODER:-cpu}
THREADS=$(nproc)
RUNS=3
JSON=
while [ $# -gt 0 ]; do
  case "$1" in
    --frames) FRAMES=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --json) JSON=$2; shift 2 ;;
    *) echo "bench.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done

BIN=${BIN:-.build/release/prores-decode}
[ -x "$BIN" ] || { echo "bench.sh: $BIN missing; run 'make build' first" >&2; exit 2; }
command -v ffmpeg >/dev/null || { echo "bench.sh: ffmpeg CLI missing (apt-get install ffmpeg)" >&2; exit 2; }

mkdir -p bench-cache
CLIP=bench-cache/4k-hq-grain-$FRAMES.mov
if [ ! -s "$CLIP" ]; then
  echo "generating $CLIP ($FRAMES frames of 3840x2160 ProRes 422 HQ with temporal grain)..." >&2
  ffmpeg -v error -y -f lavfi -i "testsrc2=size=3840x2160:rate=25,format=yuv422p10le" \
    -vf "noise=alls=24:allf=t+u" -frames:v "$FRAMES" \
    -c:v prores_ks -profile:v hq -vendor apl0 "$CLIP.tmp.mov"
  mv "$CLIP.tmp.mov" "$CLIP"
fi
BYTES=$(stat -c %s "$CLIP")
echo "clip: $CLIP, $FRAMES frames, $((BYTES / FRAMES / 1000)) kB/frame; threads $THREADS; median of $RUNS runs" >&2

# median wall seconds of RUNS runs of the command
median() {
  local times=()
  for _ in $(seq "$RUNS"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || { echo "bench.sh: failed: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc -l)")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"
}

declare -A T
T[ffmpeg_null]=$(median ffmpeg -v error -threads "$THREADS" -i "$CLIP" -f null -)
T[ours_native]=$(median "$BIN" "$CLIP" --decoder "$DECODER" --format native --threads "$THREADS" --quiet)
T[ffmpeg_raw]=$(median ffmpeg -v error -threads "$THREADS" -i "$CLIP" -f rawvideo -y /dev/null)
T[ours_native_raw]=$(median "$BIN" "$CLIP" --decoder "$DECODER" --format native --threads "$THREADS" --quiet -o /dev/null)
T[ours_v216]=$(median "$BIN" "$CLIP" --decoder "$DECODER" --format v216 --threads "$THREADS" --quiet)
T[ours_v216_raw]=$(median "$BIN" "$CLIP" --decoder "$DECODER" --format v216 --threads "$THREADS" --quiet -o /dev/null)
T[ours_y416]=$(median "$BIN" "$CLIP" --decoder "$DECODER" --format y416 --threads "$THREADS" --quiet)
T[ours_y416_raw]=$(median "$BIN" "$CLIP" --decoder "$DECODER" --format y416 --threads "$THREADS" --quiet -o /dev/null)

fps() { echo "scale=2; $FRAMES / $1" | bc -l; }
ratio() { echo "scale=3; $1 / $2" | bc -l; }
row() { printf '%-44s %8s fps  %6.3f s\n' "$1" "$(fps "$2")" "$2"; }

echo
row "ffmpeg -f null - (decode only)" "${T[ffmpeg_null]}"
row "prores-decode --format native" "${T[ours_native]}"
row "ffmpeg -f rawvideo -y /dev/null" "${T[ffmpeg_raw]}"
row "prores-decode --format native -o /dev/null" "${T[ours_native_raw]}"
row "prores-decode --format v216" "${T[ours_v216]}"
row "prores-decode --format v216 -o /dev/null" "${T[ours_v216_raw]}"
row "prores-decode --format y416 (conversion)" "${T[ours_y416]}"
row "prores-decode --format y416 -o /dev/null" "${T[ours_y416_raw]}"
echo
echo "speed vs ffmpeg (>1 = faster than ffmpeg; target native >= 0.90):"
echo "  native, no output      : $(ratio "${T[ffmpeg_null]}" "${T[ours_native]}")"
echo "  native, -o /dev/null   : $(ratio "${T[ffmpeg_raw]}" "${T[ours_native_raw]}")"
echo "packing cost vs native (wall-time ratio; target <= 1.15):"
echo "  v216                   : $(ratio "${T[ours_v216]}" "${T[ours_native]}")"
echo "  v216 -o /dev/null      : $(ratio "${T[ours_v216_raw]}" "${T[ours_native_raw]}")"
echo "  y416                   : $(ratio "${T[ours_y416]}" "${T[ours_native]}")"
echo "  y416 -o /dev/null      : $(ratio "${T[ours_y416_raw]}" "${T[ours_native_raw]}")"

# The GPU decoder (our Vulkan compute ProRes decoder) against the CPU path on
# the same in-memory frames, in one process (`prores-decode bench`); the
# ffmpeg -f null row above is the FFmpeg software baseline.
echo
if [ "${SKIP_GPU:-0}" != 1 ]; then
  "$BIN" bench "$CLIP" --decoders ffmpeg,cpu,gpu,gpu-host --frames "${BENCH_FRAMES:-$((FRAMES * 4))}" --threads "$THREADS" ||
    echo "bench.sh: prores-decode bench failed (no Vulkan device?); SKIP_GPU=1 skips it" >&2
  echo "ffmpeg -threads $THREADS -f null - : $(fps "${T[ffmpeg_null]}") fps (the same clip, decoded from the file)"
fi

if [ -n "$JSON" ]; then
  {
    printf '{"clip":"%s","frames":%s,"threads":%s,"runs":%s,"seconds":{' "$CLIP" "$FRAMES" "$THREADS" "$RUNS"
    first=1
    for k in "${!T[@]}"; do
      [ $first = 1 ] || printf ','
      first=0
      printf '"%s":%s' "$k" "${T[$k]}"
    done
    printf '}}\n'
  } > "$JSON"
fi
