#!/usr/bin/env bash
# The GPU-speed jobs of `check` and hashing, timed on the lent GPU machine
# in one call (issue #11). Runs from inside the bundle (build-bundle.sh
# copies it to dist/device-check.sh; docs/DEVICE.md):
#
#   cd dist && ./device-check.sh LOGDIR
#
# 1. makes a folder of 16 4K 422 HQ files (48 frames, temporal grain: 4
#    distinct clips, 4 copies each) and 4 4K 4444 XQ files (24 frames, 16-bit
#    alpha), with the bundled ffmpeg;
# 2. check --decoder cpu --write-golden (v2, BLAKE3 on the CPU) with
#    statistics, then check --decoder gpu --golden of that file with
#    statistics: the GPU's hashes must equal the CPU's for every frame, and
#    the statistics of both reports must be equal (light within 1e-4); both
#    timed as aggregate fps; then the GPU run again with --previews;
# 3. a v1 (md5) golden file verified on the GPU decoder (frames read back);
# 4. the single-file rows: --framemd5, --framehash, --vulkan and plain
#    decoding of a 1,920-frame file, wall time and in-run fps, and the time
#    to the first decoded frame.
# LOGDIR gets check.txt (every number), and the reports.
set -uo pipefail
cd "$(dirname "$0")"
LOGDIR=${1:-./out}
mkdir -p "$LOGDIR"
LOGDIR=$(cd "$LOGDIR" && pwd)
CLIPDIR=${CLIPDIR:-/tmp/prores-check}
BIN_DIR=${BIN_DIR:-/tmp/prores-bundle}
SIZE=${SIZE:-3840x2160}
FF=./ffmpeg
exec > >(tee "$LOGDIR/check.txt") 2>&1
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}
if [ -f prores-decode.gz ]; then
  mkdir -p "$BIN_DIR"
  gzip -dc prores-decode.gz >"$BIN_DIR/prores-decode" && chmod +x "$BIN_DIR/prores-decode"
  rm -rf "$BIN_DIR/Shaders" && cp -r Shaders "$BIN_DIR/Shaders"
  PD=$BIN_DIR/prores-decode
else
  PD=./prores-decode
fi
export PRORES_DECODE_SHADERS=$PWD/Shaders
failures=0
fail() { failures=$((failures + 1)); echo "FAIL: $*"; }
now() { date +%s.%N; }
# (no bc on the lent machine: awk does the arithmetic)
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
TIMEFORMAT=%R

# --- 1. the folder ---------------------------------------------------------------
DIR=$CLIPDIR/folder
t0=$(now)
./check-folder.sh "$FF" "$CLIPDIR" "$SIZE" || fail "cannot make the folder"
FRAMES=$((16 * 48 + 4 * 24))
echo "folder: $(ls "$DIR" | wc -l) files, $FRAMES frames, $(du -sh "$DIR" | cut -f1) (made in $(secs "$t0" "$(now)") s)"
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! "$PD" devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
"$PD" devices || fail "no Vulkan device"

# --- 2. check, CPU then GPU ---------------------------------------------------------
run_check() { # label args...
  local label=$1; shift
  local t=$(now)
  "$PD" check "$DIR" "$@" >"$LOGDIR/$label.stderr" 2>&1
  local rc=$? s=$(secs "$t" "$(now)")
  echo "check $label: exit $rc, $s s, $(ratio "$FRAMES" "$s") fps aggregate ($(tail -1 "$LOGDIR/$label.stderr"))"
  [ $rc -eq 0 ] || { fail "check $label exit $rc"; tail -5 "$LOGDIR/$label.stderr"; }
  eval "SECONDS_${label//-/_}=$s"
}
run_check cpu --decoder cpu --jobs 4 --write-golden "$LOGDIR/golden-v2.txt" --report "$LOGDIR/cpu.json" --overwrite
# The first GPU run builds the driver's pipelines (its shader cache is
# empty on a fresh machine); the second is what a user sees every day.
run_check gpu-cold --decoder gpu --golden "$LOGDIR/golden-v2.txt" --overwrite
run_check gpu --decoder gpu --golden "$LOGDIR/golden-v2.txt" --report "$LOGDIR/gpu.json" --overwrite --verbose
echo "ratio gpu/cpu: $(ratio "$SECONDS_cpu" "$SECONDS_gpu")x"
# Files in flight per device: what the default (2) leaves on the table.
for jobs in 1 4 8; do run_check gpu-jobs$jobs --decoder gpu --jobs $jobs --golden "$LOGDIR/golden-v2.txt"; done
# One 48-frame file alone: start-up, first frame, rate.
for n in 1 2; do
  echo "one file: $("$PD" "$DIR/hq-1a.mov" --decoder gpu --quiet --json 2>&1 | grep -o '"fps":[0-9.]*\|"startup_ms":{[^}]*}\|"first_frame_ms":[0-9.]*' | tr '\n' ' ')"
done
run_check gpu-previews --decoder gpu --golden "$LOGDIR/golden-v2.txt" --previews "$CLIPDIR/previews" --overwrite
python3 - "$LOGDIR/cpu.json" "$LOGDIR/gpu.json" <<'PY' || fail "CPU and GPU reports differ"
import json, sys
cpu, gpu = (json.load(open(p))["files"] for p in sys.argv[1:3])
bad = 0
for c, g in zip(cpu, gpu):
    for key in ("status", "frames", "errors", "stats"):
        a, b = c[key], g[key]
        if key == "stats" and a and b:
            la, lb = a.pop("light"), b.pop("light")
            if (la is None) != (lb is None): bad += 1
            elif la:
                for k in ("max_nits", "max_frame_average_nits"):
                    if abs(la[k] - lb[k]) > 1e-4 * max(abs(la[k]), 1e-9) + 0.05: bad += 1; print(c["path"], k, la[k], lb[k])
        if a != b: bad += 1; print(c["path"], key, a, b)
print(f"reports: {len(cpu)} files compared, {bad} differences")
sys.exit(1 if bad or len(cpu) != len(gpu) else 0)
PY

# --- 3. a v1 golden on the GPU decoder ------------------------------------------------
"$PD" check "$CLIPDIR/hq-1.mov" --decoder cpu --write-golden "$LOGDIR/one.v2" --overwrite 2>/dev/null
KEY=$(grep -v '^#' "$LOGDIR/one.v2" | head -1 | cut -d' ' -f3-)
{ echo "# prores-decode check golden v1: frame index, md5 of the native planar frame, path"
  "$FF" -v error -i "$CLIPDIR/hq-1.mov" -f framemd5 - | awk -v key="$KEY" '!/^#/ && NF {print n++, $NF, key}'; } >"$LOGDIR/one.v1"
t=$(now); "$PD" check "$CLIPDIR/hq-1.mov" --decoder gpu --golden "$LOGDIR/one.v1" >"$LOGDIR/v1.stderr" 2>&1; rc=$?
echo "v1 golden (ffmpeg framemd5) on the GPU decoder: exit $rc in $(secs "$t" "$(now)") s: $(tail -1 "$LOGDIR/v1.stderr")"

# --- 4. one long file ---------------------------------------------------------------------
LONG=$CLIPDIR/hq-x40.mov  # made by check-folder.sh
row() { # label args...
  local label=$1; shift
  local t=$(now)
  "$PD" "$LONG" --decoder gpu --quiet --json "$@" >"$LOGDIR/row-$label.json" 2>"$LOGDIR/row-$label.stderr"
  local rc=$? s=$(secs "$t" "$(now)")
  local json=$(tail -1 "$LOGDIR/row-$label.json")
  echo "1920 frames $label: exit $rc, wall $s s = $(ratio 1920 "$s") fps; in run $(echo "$json" | grep -o '"fps":[0-9.]*' | head -1); $(echo "$json" | grep -o '"startup_ms":{[^}]*}'); $(echo "$json" | grep -o '"first_frame_ms":[0-9.]*')"
}
row plain
row vulkan --vulkan
row framemd5 --format native --framemd5 "$LOGDIR/long.framemd5"
row framehash --format native --framehash "$LOGDIR/long.framehash"
row framemd5-default --framemd5 /dev/null
row raw-v216 -o /dev/null
echo "failures: $failures"
exit $((failures > 0))
