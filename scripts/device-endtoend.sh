#!/usr/bin/env bash
# Runs ON the lent GPU machine, from the repository root with the bundle in
# dist/ (docs/DEVICE.md): decoding from a file, end to end, as a user runs
# it. Separates the process's fixed start-up (Vulkan instance and device,
# pipelines, buffers) from the steady rate: each run's wall time beside the
# run time its own --json summary reports, on a 1920-frame 4K 422 HQ clip
# (48 distinct frames with grain, looped 40x by stream copy, ~7.3 GB, read
# from the page cache).
#
#   scripts/device-endtoend.sh
set -uo pipefail
CLIPS=${CLIPDIR:-/tmp/prores-endtoend}
mkdir -p "$CLIPS"
gzip -dc dist/prores-decode.gz >"$CLIPS/prores-decode" && chmod +x "$CLIPS/prores-decode" || exit 2
export PRORES_DECODE_SHADERS=$PWD/dist/Shaders SWIFT_BACKTRACE=enable=no
PD=$CLIPS/prores-decode FF=dist/ffmpeg
HQ=$CLIPS/hq.mov LONG=$CLIPS/hq-x40.mov
[ -s "$HQ" ] || "$FF" -v error -y -f lavfi -i "testsrc2=size=3840x2160:rate=25,format=yuv422p10le,noise=alls=24:allf=t+u,format=yuv422p10le" \
  -frames:v 48 -c:v prores_ks -profile:v hq -vendor apl0 "$HQ" || exit 1
[ -s "$LONG" ] || "$FF" -v error -y -stream_loop 39 -i "$HQ" -c copy "$LONG" || exit 1
cat "$LONG" >/dev/null   # into the page cache: the disk is not what is measured
TIMEFORMAT='wall %R s'
summary() { python3 -c 'import json,sys; d=json.load(sys.stdin); print("  frames %d, run %.3f s = %.1f fps (the --json summary)" % (d["frames"], d["seconds"], d["fps"]))' 2>/dev/null || cat; }
for args in "--decoder gpu" "--decoder gpu" "--decoder gpu --vulkan" "--decoder cpu --frames 480"; do
  echo "prores-decode hq-x40.mov $args --quiet --json"
  { time "$PD" "$LONG" $args --quiet --json | summary; } 2>&1
done
echo "start-up alone: one frame with the GPU decoder"
{ time "$PD" "$HQ" --decoder gpu --frames 1 --quiet; } 2>&1
echo "Vulkan alone: prores-decode devices"
{ time "$PD" devices >/dev/null; } 2>&1
