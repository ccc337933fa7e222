#!/usr/bin/env bash
# The reader's open leads in one call ON the lent GPU machine (issue #14;
# docs/DEVICE.md, "The first call of the next session"), most important
# first, the logs tarred into OUT/reader-leads-logs.tgz after each part:
#  1. exactness with the video-memory twins on (fixtures, matrix, 4K HQ clip)
#  2. the twins against the default and FFmpeg's Vulkan decoder, 8 rounds,
#     and one traced run counting the frames that came from twins
#  3. the host probes: bar-probe (the reads beside the upload's DMA) and
#     read-ceiling (the reader's two ways into its pool)
#  4. PRORES_DECODE_READ_COPY=mapped-once, 6 rounds
#
#   scripts/device-reader-leads.sh DIST FFMPEG_VULKAN PROBES OUT
#
# PROBES: a folder with bar-probe and read-ceiling built on the dev machine
# (the commands are in docs/DEVICE.md). Run from the repository root with
# .gl's libraries installed (dpkg -x, ldconfig) as every device call does.
# SIZE, LOOPS and CLIPDIR go to device-ffmpeg-vulkan.sh (to try it small on
# lavapipe); SKIP_EXACT=1 leaves out part 1.
set -u
D=$1 FFVK=$2 P=$3 O=$4 L=/tmp/reader-leads
mkdir -p $L
export SWIFT_BACKTRACE=enable=no
{ lscpu | grep -E "Model name|^CPU\(s\)|MHz|L3|NUMA node\(s\)"; grep -E "MemTotal" /proc/meminfo; uname -a; nvidia-smi --query-gpu=name,driver_version,pcie.link.gen.current,pcie.link.width.current --format=csv 2>&1 || true; } > $L/host.txt 2>&1; cat $L/host.txt
t0=$(date +%s)
if [ -z "${SKIP_EXACT:-}" ]; then
  SKIP_CLIPS="1080p-hq 4k-xq 8k-hq 4k-4444-alpha" SKIP_AB=1 SKIP_FILE=1 BATCHES="" \
    EXACT_ENVS="PRORES_DECODE_SAMPLE_TWINS=1,PRORES_DECODE_PREFETCH_FRAMES=1" bash scripts/device-decoder.sh "$D" "$D" $L/dec > $L/decoder.txt 2>&1
  echo "exactness: $(( $(date +%s) - t0 )) s"; grep -E "identical|differ|FAIL|setting" $L/decoder.txt | tail -8
  find $L -type f -size +8M -delete; tar -czf $O/reader-leads-logs.tgz -C /tmp reader-leads
fi
VARIANT=PRORES_DECODE_SAMPLE_TWINS=1 ROUNDS=8 SKIP_DOWNLOAD=1 bash scripts/device-ffmpeg-vulkan.sh "$D" "$FFVK" $L/tw 2>&1 | grep -E "median|ratio|equal|DIFFER" | grep -v nan
LONG=${CLIPDIR:-/tmp/prores-ffvk}/hq-${SIZE:-3840x2160}-x$((${LOOPS:-24} + 1)).mov  # device-ffmpeg-vulkan.sh's file
PRORES_DECODE_SAMPLE_TWINS=1 PRORES_DECODE_TRACE=$L/tw-trace.json /tmp/ffvk-bin/prores-decode $LONG --decoder gpu --quiet --json > $L/tw-traced.json 2>&1
python3 scripts/trace-summary.py $L/tw-trace.json > $L/tw-trace-summary.txt 2>&1; grep -E "twin|wait for sample|read sample|decode run" $L/tw-trace-summary.txt; rm -f $L/tw-trace.json
echo "twins: $(( $(date +%s) - t0 )) s"
find $L -type f -size +8M -delete; tar -czf $O/reader-leads-logs.tgz -C /tmp reader-leads
"$P"/bar-probe $LONG 512 3800 8,16 > $L/bar-probe.txt 2>&1; grep -E "anon|dma|^bar " $L/bar-probe.txt
READER_ONLY=1 "$P"/read-ceiling $LONG > $L/read-ceiling.txt 2>&1; grep -E "threads  (8|16)|unmapping|equals|DIFFERS" $L/read-ceiling.txt
echo "probes: $(( $(date +%s) - t0 )) s"
tar -czf $O/reader-leads-logs.tgz -C /tmp reader-leads
VARIANT=PRORES_DECODE_READ_COPY=mapped-once ROUNDS=6 SKIP_DOWNLOAD=1 bash scripts/device-ffmpeg-vulkan.sh "$D" "$FFVK" $L/mo 2>&1 | grep -E "median|ratio" | grep -v nan
echo "total $(( $(date +%s) - t0 )) s"
find $L -type f -size +8M -delete; tar -czf $O/reader-leads-logs.tgz -C /tmp reader-leads
