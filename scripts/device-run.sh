#!/usr/bin/env bash
# Runs ON the lent GPU machine, from inside the bundle (scripts/build-bundle.sh
# copies it to dist/bench-device.sh; see docs/DEVICE.md):
#
#   cd dist && ./bench-device.sh [LOGDIR]          (default ./out)
#
# 1. the machine: nproc, CPU, OS, Vulkan loader, GPU; ldd of both binaries
# 2. fixture checks: every Fixtures/<clip> with Fixtures/ref/<clip>.framemd5 is
#    decoded with --format native (and v216/y416 where a ref exists) and its
#    per-frame md5s compared with the reference: PASS/FAIL per clip, a total
# 3. generates with the bundled ffmpeg a 4K 422 HQ clip with temporal grain
#    and a 4K 4444 clip with a gradient alpha (16-bit alpha coding), checks
#    that prores-decode's native frames of both are bit-identical to the
#    bundled ffmpeg's, and times FFmpeg's software decoder against
#    prores-decode on both (median of RUNS runs each), as scripts/bench.sh does
# 4. where a Vulkan device answers (`prores-decode devices`): a --vulkan --save
#    smoke test, --vulkan timings beside the CPU ones, and `roofline`
#
# prores-decode.gz is unpacked into BIN_DIR (default /tmp/prores-bundle), so
# the bundle itself never grows. LOGDIR gets seven small text files
# (summary.txt, fixtures.txt, bench.txt, bench.json, gpu.txt, generate.log,
# failures.log), so it can be the device tool's $OUT. The clips (~0.5 GB) go
# to CLIPDIR (default /tmp/prores-bench).
#
# Environment: FRAMES (422 clip, 48), FRAMES_4444 (24), THREADS (nproc),
# RUNS (3), SIZE (3840x2160), CLIPDIR, BIN_DIR, SKIP_BENCH=1 (checks only),
# SKIP_GPU=1, REQUIRE_GPU=1, SKIP_ROOFLINE=1, SKIP_CPU_BENCH=1 (only the GPU
# decoder's checks and bench), BENCH_FRAMES (1200: the CPU-vs-GPU run),
# GPU_BENCH_FRAMES (4800: the GPU-only runs), BENCH_BATCH.
# Exit status: 0 when every fixture check passed and every timed command ran.
set -uo pipefail
cd "$(dirname "$0")"
LOGDIR=${1:-./out}
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
FRAMES=${FRAMES:-48}
FRAMES_4444=${FRAMES_4444:-24}
THREADS=${THREADS:-$(nproc)}
RUNS=${RUNS:-3}
SIZE=${SIZE:-3840x2160}
CLIPDIR=${CLIPDIR:-/tmp/prores-bench}
BIN_DIR=${BIN_DIR:-/tmp/prores-bundle}
FF=./ffmpeg
failures=0
: >"$LOGDIR/failures.log"
exec > >(tee "$LOGDIR/summary.txt") 2>&1
START=$(date +%s)

fail() { failures=$((failures + 1)); echo "FAIL: $*" | tee -a "$LOGDIR/failures.log"; }
section() { printf '\n===== %s\n' "$*"; }

# prores-decode travels gzip'd (38 MB -> 14 MB): unpack it outside the bundle,
# with Shaders/ beside it (where it looks for them), and check its sha256.
if [ -f prores-decode.gz ]; then
  mkdir -p "$BIN_DIR"
  gzip -dc prores-decode.gz >"$BIN_DIR/prores-decode.tmp" && chmod +x "$BIN_DIR/prores-decode.tmp" &&
    mv "$BIN_DIR/prores-decode.tmp" "$BIN_DIR/prores-decode" || { echo "cannot unpack prores-decode.gz into $BIN_DIR" >&2; exit 2; }
  rm -rf "$BIN_DIR/Shaders"
  [ -d Shaders ] && cp -r Shaders "$BIN_DIR/Shaders"
  PD=$BIN_DIR/prores-decode
  want=$(sed -n 's/^prores-decode (gunzip.*sha256 \([0-9a-f]*\).*/\1/p' MANIFEST.txt 2>/dev/null)
  [ -z "$want" ] || [ "$(sha256sum "$PD" | cut -d' ' -f1)" = "$want" ] || fail "unpacked prores-decode does not match MANIFEST.txt"
else
  PD=./prores-decode
fi
[ -d Shaders ] && export PRORES_DECODE_SHADERS=$PWD/Shaders
# A crash must end the process at once: the Swift runtime's backtracer can
# otherwise hold it (one call hung until the command's limit on 2026-11-30).
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
[ -x "$PD" ] && [ -x "$FF" ] || { echo "run this from inside dist/ (no $PD or $FF)" >&2; exit 2; }

# --- 1. the machine -------------------------------------------------------------
section "machine"
echo "date:    $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo "nproc:   $(nproc)"
echo "cpu:     $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "memory:  $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
echo "os:      $( (. /etc/os-release && echo "$PRETTY_NAME") 2>/dev/null), kernel $(uname -r)"
echo "glibc:   $(ldd --version 2>/dev/null | head -1)"
echo "vulkan:  $(ldconfig -p 2>/dev/null | grep -m1 'libvulkan.so.1' | sed 's/^[[:space:]]*//' || true)"
command -v nvidia-smi >/dev/null && echo "gpu:     $(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)"
echo "threads: $THREADS, runs: $RUNS, frames: $FRAMES (422 HQ) / $FRAMES_4444 (4444), size $SIZE"
[ -f MANIFEST.txt ] && echo "bundle:  $(sed -n 2p MANIFEST.txt)"

section "ldd $PD"
ldd "$PD" || fail "ldd $PD"
ldd "$PD" 2>&1 | grep -q 'not found' && fail "$PD: a library is missing"
section "ldd $FF"
ldd "$FF" || fail "ldd $FF"
ldd "$FF" 2>&1 | grep -q 'not found' && fail "$FF: a library is missing"
section "versions"
"$PD" --version || fail "$PD --version"
"$FF" -hide_banner -version | head -1 || fail "$FF -version"

# --- 2. fixture checks ----------------------------------------------------------------
section "fixture checks (per-frame md5 against Fixtures/ref)"
md5col() { awk '!/^#/ && NF {print $NF}' "$1"; }
pass=0; total=0
: >"$LOGDIR/fixtures.txt"
for ref in Fixtures/ref/*.framemd5; do
  clip=Fixtures/$(basename "$ref" .framemd5)
  [ -f "$clip" ] || continue
  total=$((total + 1))
  verdict=PASS; detail=""
  for fmt in native v216 y416; do
    if [ $fmt = native ]; then want=$ref; else want=Fixtures/ref/$(basename "$clip").$fmt.md5; fi
    [ -f "$want" ] || continue
    got=$(mktemp)
    if ! "$PD" "$clip" --decoder cpu --format $fmt --framemd5 - --quiet >"$got" 2>"$got.err"; then
      verdict=FAIL; detail+=" $fmt:exit($(tail -1 "$got.err"))"
    elif ! diff -q <(md5col "$want") <(md5col "$got") >/dev/null; then
      verdict=FAIL; detail+=" $fmt:md5-mismatch($(md5col "$got" | wc -l)/$(md5col "$want" | wc -l) frames)"
      { echo "--- $clip $fmt: < expected, > got"; diff <(md5col "$want") <(md5col "$got") | head -20; } >>"$LOGDIR/fixtures.txt"
    else
      detail+=" $fmt:ok"
    fi
    rm -f "$got" "$got.err"
  done
  printf '%-4s %-34s%s\n' "$verdict" "$clip" "$detail" | tee -a "$LOGDIR/fixtures.txt"
  if [ $verdict = PASS ]; then pass=$((pass + 1)); else failures=$((failures + 1)); echo "fixture $clip:$detail" >>"$LOGDIR/failures.log"; fi
done
echo "fixtures: $pass/$total passed"

# --- GPU (Vulkan): optional until the loader is part of the recipe ---------------------
# Without a loader or device `devices` exits 8: the GPU rows are then skipped,
# not failed (REQUIRE_GPU=1 makes that a failure).
section "Vulkan devices"
GPU_OK=0
: >"$LOGDIR/gpu.txt"
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
gpu_probe() { "$PD" devices 2>&1 | tee -a "$LOGDIR/gpu.txt"; }
if [ "${SKIP_GPU:-0}" = 1 ]; then
  false
elif gpu_probe; then
  true
elif [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$NVIDIA_ICD" ]; then
  # the lent machines' driver lives outside the loader's search path
  echo "retrying with VK_DRIVER_FILES=$NVIDIA_ICD" | tee -a "$LOGDIR/gpu.txt"
  export VK_DRIVER_FILES=$NVIDIA_ICD
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  gpu_probe
else
  false
fi
if [ $? = 0 ]; then
  GPU_OK=1
  save=$(mktemp -d)
  if "$PD" Fixtures/pq.mov --vulkan --frames 2 --save "$save" --quiet >>"$LOGDIR/gpu.txt" 2>&1 &&
     [ "$(ls "$save" | wc -l)" -ge 2 ]; then
    echo "PASS --vulkan --save: $(ls "$save" | tr '\n' ' ')"
  else
    fail "--vulkan --save on Fixtures/pq.mov (see gpu.txt)"
  fi
  rm -rf "$save"
else
  echo "no usable Vulkan device: GPU rows skipped"
  { echo "--- VK_LOADER_DEBUG=error,warn,driver"; VK_LOADER_DEBUG=error,warn,driver "$PD" devices 2>&1 | tail -40; } >>"$LOGDIR/gpu.txt"
  [ "${REQUIRE_GPU:-0}" = 1 ] && fail "no usable Vulkan device (REQUIRE_GPU=1)"
fi

if [ "${SKIP_BENCH:-0}" = 1 ]; then
  section "done in $(( $(date +%s) - START )) s: $failures failure(s)"
  exit $((failures > 0))
fi

# --- 3. clips ---------------------------------------------------------------------------
section "generating clips in $CLIPDIR (bundled ffmpeg, all cores)"
mkdir -p "$CLIPDIR"
# alpha: a horizontal ramp, tilted vertically, drifting over time
ALPHA="clip(1023*X/W+256*(Y/H-0.5)+8*N,0,1023)"
HQ_GRAPH="testsrc2=size=$SIZE:rate=25,format=yuv422p10le,noise=alls=24:allf=t+u,format=yuv422p10le"
# No grain here: prores_ks (FFmpeg 5.1) codes noisy 4444 with alpha almost
# losslessly (~30 MB/frame at 4K, vs ~6 MB for real 4444); clean it is ~6 MB.
XQ_GRAPH="testsrc2=size=$SIZE:rate=25,format=yuva444p10le,geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='$ALPHA'"
graph_id() { printf '%s' "$*" | cksum | cut -d' ' -f1; }   # a changed recipe makes a new clip
HQ=$CLIPDIR/hq422-grain-$SIZE-$FRAMES-$(graph_id "$HQ_GRAPH").mov
XQ=$CLIPDIR/4444-alpha-$SIZE-$FRAMES_4444-$(graph_id "$XQ_GRAPH").mov
gen() { # OUT FRAMES GRAPH ENCODER-ARGS...
  local out=$1 n=$2 graph=$3; shift 3
  [ -s "$out" ] && { echo "reusing $out"; return 0; }
  local t0; t0=$(date +%s.%N)
  echo "$FF -f lavfi -i \"$graph\" -frames:v $n $* $out" >>"$LOGDIR/generate.log"
  if "$FF" -hide_banner -v error -y -f lavfi -i "$graph" -frames:v "$n" "$@" "$out.tmp.mov" \
       >>"$LOGDIR/generate.log" 2>&1; then
    mv "$out.tmp.mov" "$out"
    echo "generated $out: $n frames, $(( $(stat -c %s "$out") / n / 1000 )) kB/frame, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
  else
    rm -f "$out.tmp.mov"; fail "generating $out (see generate.log)"; tail -5 "$LOGDIR/generate.log"
    return 1
  fi
}
gen "$HQ" "$FRAMES" "$HQ_GRAPH" -c:v prores_ks -profile:v hq -vendor apl0
gen "$XQ" "$FRAMES_4444" "$XQ_GRAPH" -c:v prores_ks -profile:v 4444 -alpha_bits 16 -vendor apl0

section "cross-check: the 4K clips decode to the same frames as the bundled ffmpeg"
for clip in "$HQ" "$XQ"; do
  [ -s "$clip" ] || continue
  want=$(mktemp); got=$(mktemp)
  "$FF" -v error -threads "$THREADS" -i "$clip" -f framemd5 - 2>>"$LOGDIR/failures.log" | awk '!/^#/ && NF {print $NF}' >"$want"
  "$PD" "$clip" --decoder cpu --format native --threads "$THREADS" --framemd5 - --quiet 2>>"$LOGDIR/failures.log" | awk '!/^#/ && NF {print $NF}' >"$got"
  if [ -s "$want" ] && cmp -s "$want" "$got"; then
    echo "PASS $(basename "$clip"): $(wc -l <"$got") frames identical"
  else
    echo "FAIL $(basename "$clip"): ffmpeg $(wc -l <"$want") frames, prores-decode $(wc -l <"$got"), $(diff "$want" "$got" | grep -c '^>') differ"
    fail "cross-check $(basename "$clip")"
  fi
  rm -f "$want" "$got"
done

# --- 4. timings ------------------------------------------------------------------------
# median wall seconds of RUNS runs; "fail" when the command fails
median() {
  local times=() t0 t1
  for _ in $(seq "$RUNS"); do
    t0=$(date +%s.%N)
    if ! "$@" >/dev/null 2>>"$LOGDIR/failures.log"; then echo fail; return; fi
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f", b - a}')")
  done
  printf '%s\n' "${times[@]}" | sort -g | sed -n "$(( (RUNS + 1) / 2 ))p"
}
fps() { awk -v n="$1" -v t="$2" 'BEGIN {if (t == "fail" || t <= 0) print "-"; else printf "%.2f", n / t}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "fail" || b == "fail" || b <= 0) print "-"; else printf "%.3f", a / b}'; }
row() { printf '%-46s %9s fps  %8s s\n' "$1" "$(fps "$FRAMES_NOW" "$2")" "$2"; }

JSON_CLIPS=()
bench_clip() { # LABEL CLIP FRAMES DEFAULT-LAYOUT
  local label=$1 clip=$2 layout=$4; FRAMES_NOW=$3
  [ -s "$clip" ] || { fail "no clip for $label"; return; }
  declare -A T
  T[ffmpeg_null]=$(median "$FF" -v error -threads "$THREADS" -i "$clip" -f null -)
  T[ours_native]=$(median "$PD" "$clip" --decoder cpu --format native --threads "$THREADS" --quiet)
  T[ffmpeg_raw]=$(median "$FF" -v error -threads "$THREADS" -i "$clip" -f rawvideo -y /dev/null)
  T[ours_native_raw]=$(median "$PD" "$clip" --decoder cpu --format native --threads "$THREADS" --quiet -o /dev/null)
  T[ours_v216]=$(median "$PD" "$clip" --decoder cpu --format v216 --threads "$THREADS" --quiet)
  T[ours_v216_raw]=$(median "$PD" "$clip" --decoder cpu --format v216 --threads "$THREADS" --quiet -o /dev/null)
  T[ours_y416]=$(median "$PD" "$clip" --decoder cpu --format y416 --threads "$THREADS" --quiet)
  T[ours_y416_raw]=$(median "$PD" "$clip" --decoder cpu --format y416 --threads "$THREADS" --quiet -o /dev/null)
  if [ $GPU_OK = 1 ]; then
    # The --vulkan cost is measured on a 5x longer stream-copied clip, so the
    # one-off Vulkan set-up does not masquerade as a per-frame cost.
    local long=${clip%.mov}-x5.mov
    [ -s "$long" ] || "$FF" -v error -y -stream_loop 4 -i "$clip" -c copy "$long" || fail "$label: making the long clip"
    T[long_cpu]=$(median "$PD" "$long" --decoder cpu --format "$layout" --threads "$THREADS" --quiet)
    T[long_vulkan]=$(median "$PD" "$long" --decoder cpu --format "$layout" --vulkan --threads "$THREADS" --quiet)
    { echo "--- $label x5: prores-decode --format $layout --vulkan --json"; "$PD" "$long" --format "$layout" --vulkan --threads "$THREADS" --quiet --json 2>&1; } >>"$LOGDIR/gpu.txt"
  fi
  local k
  for k in "${!T[@]}"; do [ "${T[$k]}" = fail ] && fail "$label: $k did not run (see failures.log)"; done

  section "$label: $clip, $FRAMES_NOW frames, $(( $(stat -c %s "$clip") / FRAMES_NOW / 1000 )) kB/frame; threads $THREADS; median of $RUNS"
  {
    row "ffmpeg -f null - (decode only)" "${T[ffmpeg_null]}"
    row "prores-decode --format native" "${T[ours_native]}"
    row "ffmpeg -f rawvideo -y /dev/null" "${T[ffmpeg_raw]}"
    row "prores-decode --format native -o /dev/null" "${T[ours_native_raw]}"
    row "prores-decode --format v216" "${T[ours_v216]}"
    row "prores-decode --format v216 -o /dev/null" "${T[ours_v216_raw]}"
    row "prores-decode --format y416" "${T[ours_y416]}"
    row "prores-decode --format y416 -o /dev/null" "${T[ours_y416_raw]}"
    if [ $GPU_OK = 1 ]; then
      FRAMES_NOW=$((FRAMES_NOW * 5))
      row "x5 clip: prores-decode --format $layout" "${T[long_cpu]}"
      row "x5 clip: prores-decode --format $layout --vulkan" "${T[long_vulkan]}"
      FRAMES_NOW=$((FRAMES_NOW / 5))
    fi
    echo
    echo "speed vs ffmpeg (>1 = faster than ffmpeg; target native >= 0.90):"
    echo "  native, no output      : $(ratio "${T[ffmpeg_null]}" "${T[ours_native]}")"
    echo "  native, -o /dev/null   : $(ratio "${T[ffmpeg_raw]}" "${T[ours_native_raw]}")"
    echo "packing cost vs native (wall-time ratio; target <= 1.15):"
    echo "  v216                   : $(ratio "${T[ours_v216]}" "${T[ours_native]}")"
    echo "  v216 -o /dev/null      : $(ratio "${T[ours_v216_raw]}" "${T[ours_native_raw]}")"
    echo "  y416                   : $(ratio "${T[ours_y416]}" "${T[ours_native]}")"
    echo "  y416 -o /dev/null      : $(ratio "${T[ours_y416_raw]}" "${T[ours_native_raw]}")"
    [ $GPU_OK = 1 ] && echo "--vulkan cost vs the CPU-only $layout run, x5 clip (target <= 1.10): $(ratio "${T[long_vulkan]}" "${T[long_cpu]}")"
  } | tee -a "$LOGDIR/bench.txt"
  local j first=1
  j=$(printf '{"label":"%s","clip":"%s","frames":%s,"bytes":%s,"seconds":{' "$label" "$(basename "$clip")" "$FRAMES_NOW" "$(stat -c %s "$clip")")
  for k in "${!T[@]}"; do
    [ $first = 1 ] || j+=","
    first=0
    if [ "${T[$k]}" = fail ]; then j+="\"$k\":null"; else j+="\"$k\":${T[$k]}"; fi
  done
  JSON_CLIPS+=("$j}}")
}
: >"$LOGDIR/bench.txt"
# --- GPU decoder: bit-exactness against the CPU decoder, then `bench` ---------------------
# Every fixture, the encoder-variant matrix (prores-variants.sh, with the
# bundled ffmpeg) and both 4K clips: --decoder gpu must give the same
# per-frame md5s as --decoder cpu in native, v216 and y416.
if [ $GPU_OK = 1 ]; then
  section "GPU decoder: --decoder gpu vs --decoder cpu, per-frame md5"
  VARIANTS=$CLIPDIR/variants
  rm -rf "$VARIANTS"
  ./prores-variants.sh "$VARIANTS" "$FF" >/dev/null 2>>"$LOGDIR/generate.log" || fail "prores-variants.sh (see generate.log)"
  gpass=0; gtotal=0
  # Every process under a time limit: a GPU hang must not eat the device budget.
  for clip in Fixtures/*.mov Fixtures/*.mxf "$VARIANTS"/*.mov "$HQ" "$XQ"; do
    [ -s "$clip" ] || continue
    gtotal=$((gtotal + 1)); verdict=PASS; detail=""
    formats="native v216 y416"
    case "$clip" in "$VARIANTS"/*) formats=native ;; esac   # the variants: native (the other layouts pack it on the CPU)
    for fmt in $formats; do
      a=$(timeout 120 "$PD" "$clip" --decoder cpu --format $fmt --framemd5 - --quiet 2>/dev/null | md5col /dev/stdin | md5sum)
      b=$(timeout 120 "$PD" "$clip" --decoder gpu --format $fmt --framemd5 - --quiet 2>>"$LOGDIR/failures.log" | md5col /dev/stdin | md5sum)
      if [ "$a" = "$b" ]; then detail+=" $fmt:ok"; else verdict=FAIL; detail+=" $fmt:DIFF"; fi
    done
    printf '%-4s %-40s%s\n' "$verdict" "$(basename "$clip")" "$detail" >>"$LOGDIR/gpu.txt"
    if [ $verdict = PASS ]; then gpass=$((gpass + 1)); else fail "GPU decoder differs on $clip:$detail"; fi
  done
  echo "GPU decoder bit-exact: $gpass/$gtotal clips (native, v216, y416 each)"
  timeout 120 "$PD" "$HQ" --require-hardware --quiet --json 2>&1 | tail -1 | tee -a "$LOGDIR/gpu.txt" || fail "--require-hardware on $HQ"
  # The exit status itself: a crash at exit would otherwise hide behind a pipe.
  timeout 120 "$PD" "$HQ" --decoder gpu --vulkan --quiet; rc=$?
  [ $rc = 0 ] && echo "PASS --decoder gpu --vulkan exits 0" || fail "--decoder gpu --vulkan on $HQ exited $rc"

  section "bench: CPU ($THREADS threads) vs GPU decoder, same in-memory frames"
  # The CPU path is timed once (JSON, both clips); the text runs repeat only the GPU paths.
  timeout 400 "$PD" bench "$HQ" "$XQ" --decoders cpu,gpu,gpu-host --frames "${BENCH_FRAMES:-1200}" --threads "$THREADS" \
    ${BENCH_BATCH:+--batch $BENCH_BATCH} --json >"$LOGDIR/gpu-bench.json" 2>>"$LOGDIR/failures.log" || fail "bench --json"
  # Longer GPU-only runs (a few seconds each): the sustained rate.
  timeout 120 "$PD" bench "$HQ" "$XQ" --decoders gpu,gpu-host --frames "${GPU_BENCH_FRAMES:-4800}" \
    ${BENCH_BATCH:+--batch $BENCH_BATCH} 2>&1 | tee -a "$LOGDIR/bench.txt" || fail "bench (text)"
  # Batch size, and the upload on the compute queue instead of the transfer queue, for comparison.
  for batch in 8 32; do
    echo "--- gpu, --batch $batch" | tee -a "$LOGDIR/bench.txt"
    timeout 120 "$PD" bench "$HQ" "$XQ" --decoders gpu --frames "${GPU_BENCH_FRAMES:-4800}" --batch $batch 2>&1 | tee -a "$LOGDIR/bench.txt" || fail "bench --batch $batch"
  done
  echo "--- gpu, PRORES_DECODE_TRANSFER_QUEUE=0 (uploads on the compute queue)" | tee -a "$LOGDIR/bench.txt"
  PRORES_DECODE_TRANSFER_QUEUE=0 timeout 120 "$PD" bench "$HQ" "$XQ" --decoders gpu --frames "${GPU_BENCH_FRAMES:-4800}" \
    ${BENCH_BATCH:+--batch $BENCH_BATCH} 2>&1 | tee -a "$LOGDIR/bench.txt" || fail "bench without the transfer queue"
  # The Khronos validation layer on this driver, where one was carried (VK_LAYER_PATH).
  if [ -n "${VK_LAYER_PATH:-}" ]; then
    section "validation layer: GPU decoder and --vulkan on $(basename "$HQ") and the fixtures"
    : >"$LOGDIR/validation.txt"
    if ! timeout 200 "$PD" bench "$HQ" "$XQ" --decoders gpu,gpu-host --frames 96 --validate >>"$LOGDIR/validation.txt" 2>&1; then
      fail "bench --validate"
      { echo "--- VK_LOADER_DEBUG=error,warn,layer"; VK_LOADER_DEBUG=error,warn,layer timeout 60 "$PD" Fixtures/hq.mov --frames 1 --vulkan --validate --quiet 2>&1 | tail -40; } >>"$LOGDIR/validation.txt"
    fi
    for clip in Fixtures/hq.mov Fixtures/4444.mov Fixtures/interlaced-bff.mov Fixtures/odd-size-444.mov; do
      timeout 60 "$PD" "$clip" --decoder gpu --vulkan --validate --framemd5 - --quiet >/dev/null 2>>"$LOGDIR/validation.txt" || fail "--validate on $clip"
    done
    n=$(grep -c "vulkan validation:" "$LOGDIR/validation.txt")
    echo "validation messages: $n" | tee -a "$LOGDIR/bench.txt"
    [ "$n" = 0 ] || fail "$n validation messages (validation.txt)"
  fi
  # From the file, on the clips looped 10x (stream copy), so that process
  # start-up (Vulkan, pipelines) is not most of the time.
  for clip in "$HQ" "$XQ"; do
    [ -s "$clip" ] || continue
    long=${clip%.mov}-x10.mov
    [ -s "$long" ] || "$FF" -v error -y -stream_loop 9 -i "$clip" -c copy "$long" || fail "making $long"
    echo "--- end to end from the file: $(basename "$long")" | tee -a "$LOGDIR/bench.txt"
    for args in "--decoder cpu" "--decoder gpu" "--decoder gpu --vulkan"; do
      t=$(median "$PD" "$long" $args --threads "$THREADS" --quiet)
      n=$((FRAMES * 10)); [ "$clip" = "$XQ" ] && n=$((FRAMES_4444 * 10))
      printf '%-40s %9s fps\n' "prores-decode $args" "$(fps "$n" "$t")" | tee -a "$LOGDIR/bench.txt"
    done
  done
fi

if [ "${SKIP_CPU_BENCH:-0}" != 1 ]; then
  bench_clip "4K ProRes 422 HQ with grain" "$HQ" "$FRAMES" v216
  bench_clip "4K ProRes 4444 with alpha" "$XQ" "$FRAMES_4444" y416
fi
if [ $GPU_OK = 1 ] && [ "${SKIP_ROOFLINE:-0}" != 1 ]; then
  section "roofline (GPU bandwidth ceilings)"
  timeout 180 "$PD" roofline 2>&1 | tee -a "$LOGDIR/gpu.txt" || fail "roofline"
fi
{
  printf '{"nproc":%s,"threads":%s,"runs":%s,"size":"%s","cpu":"%s","clips":[' "$(nproc)" "$THREADS" "$RUNS" "$SIZE" \
    "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//; s/"//g')"
  (IFS=,; printf '%s' "${JSON_CLIPS[*]}")
  printf '],"gpu":%s,"fixtures":{"passed":%s,"total":%s},"failures":%s}\n' "$GPU_OK" "$pass" "$total" "$failures"
} >"$LOGDIR/bench.json"

section "done in $(( $(date +%s) - START )) s: fixtures $pass/$total passed, $failures failure(s); logs in $LOGDIR"
exit $((failures > 0))
