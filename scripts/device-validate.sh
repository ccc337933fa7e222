#!/usr/bin/env bash
# Runs ON the lent GPU machine, from the repository root, with the bundle in
# dist/ (make bundle) and the Khronos validation layer carried in .vl/
# (docs/DEVICE.md): every GPU path under the validation layer on the real
# driver, where the transfer queue, its semaphores and concurrent sharing are
# used (lavapipe, which CI validates on, has a single queue).
#
#   scripts/device-validate.sh [LOGDIR]     (default ./out-validate)
#
# Prints each command and the number of validation messages it caused;
# exits 1 when any command failed or any message was reported.
set -uo pipefail
LOGDIR=${1:-./out-validate}
mkdir -p "$LOGDIR" /tmp/vl /tmp/prores-validate
LOGDIR=$(cd "$LOGDIR" && pwd)
# The layer's manifest names its library without a path, which the loader
# then looks for in the system's library path: point it next to the manifest.
sed 's|"library_path": "libVkLayer|"library_path": "./libVkLayer|' .vl/VkLayer_khronos_validation.json >/tmp/vl/VkLayer_khronos_validation.json
gzip -dc .vl/libVkLayer_khronos_validation.so.gz >/tmp/vl/libVkLayer_khronos_validation.so
gzip -dc dist/prores-decode.gz >/tmp/prores-validate/prores-decode && chmod +x /tmp/prores-validate/prores-decode
export VK_LAYER_PATH=/tmp/vl PRORES_DECODE_SHADERS=$PWD/dist/Shaders SWIFT_BACKTRACE=enable=no
PD=/tmp/prores-validate/prores-decode FF=dist/ffmpeg
status=0
run() { # LABEL ARGS...
  local label=$1; shift
  timeout 120 "$PD" "$@" >"$LOGDIR/$label.out" 2>"$LOGDIR/$label.err"
  local rc=$? n
  n=$(grep -c "vulkan validation:" "$LOGDIR/$label.err")
  printf '%-28s rc %-3s validation messages %s\n' "$label" "$rc" "$n"
  if [ "$rc" != 0 ] || [ "$n" != 0 ]; then status=1; grep -m5 "vulkan validation:\|error" "$LOGDIR/$label.err"; fi
}
HQ=/tmp/prores-validate/hq-1080.mov XQ=/tmp/prores-validate/4444-1080.mov
"$FF" -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=25,format=yuv422p10le" -frames:v 40 -c:v prores_ks -profile:v hq "$HQ"
"$FF" -v error -y -f lavfi -i "testsrc2=size=1920x1080:rate=25,format=yuva444p10le" -frames:v 20 -c:v prores_ks -profile:v 4444 "$XQ"
"$PD" devices | head -2
run bench-hq bench "$HQ" --decoders gpu,gpu-host --frames 96 --validate
run bench-4444 bench "$XQ" --decoders gpu,gpu-host --frames 96 --validate
for clip in hq.mov 4444.mov interlaced-bff.mov odd-size-444.mov; do
  run "host-$clip" Fixtures/$clip --decoder gpu --format y416 --framemd5 - --validate
  run "device-$clip" Fixtures/$clip --decoder gpu --vulkan --save /tmp/prores-validate/save-$clip --overwrite --validate
done
run effects "$HQ" --decoder gpu --vulkan --effect chroma-key:color=0,1,0 --effect exposure:1 --effect sepia --realtime --rate 250 --validate
run cpu-vulkan "$HQ" --decoder cpu --vulkan --validate
echo "validation: $([ $status = 0 ] && echo clean || echo FAILED)"
exit $status
