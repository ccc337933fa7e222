#!/usr/bin/env bash
# Reads in flight (PRORES_DECODE_READ_AHEAD) against the 1,920-frame 4K HQ
# decode, ON the lent GPU machine: makes only check-folder.sh's first HQ
# clip and its 40-fold loop (~1 min), then times each job with each
# setting, interleaved, ROUNDS times (wall s and the run's fps).
#
#   scripts/device-read-ahead.sh DIST LOGDIR
#
# Environment: SETTINGS ("8 16 32"), JOBS ("plain vulkan framehash"), ROUNDS (3).
set -u
D=$1 LOGDIR=${2:-/tmp/read-ahead}
CLIPDIR=${CLIPDIR:-/tmp/prores-check}
mkdir -p "$LOGDIR" "$CLIPDIR" /tmp/ra-bin
export SWIFT_BACKTRACE=enable=no
log() { echo "$*" | tee -a "$LOGDIR/read-ahead.txt"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
gunzip -c "$D/prores-decode.gz" >/tmp/ra-bin/prores-decode && chmod +x /tmp/ra-bin/prores-decode
rm -rf /tmp/ra-bin/Shaders && cp -r "$D/Shaders" /tmp/ra-bin/
PD=/tmp/ra-bin/prores-decode
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! $PD devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
log "$(grep -m1 '^built' "$D/MANIFEST.txt")"
log "device: $($PD devices 2>&1 | grep -i -m1 nvidia)"
CLIP=$CLIPDIR/hq-1.mov LONG=$CLIPDIR/hq-x40.mov
t=$(now)
[ -s "$CLIP" ] || "$D/ffmpeg" -nostdin -v error -y -f lavfi \
  -i "testsrc2=size=3840x2160:rate=25,format=yuv422p10le,noise=alls=24:allf=t+u:all_seed=1,format=yuv422p10le" \
  -frames:v 48 -c:v prores_ks -profile:v hq -vendor apl0 "$CLIP"
[ -s "$LONG" ] || "$D/ffmpeg" -nostdin -v error -y -stream_loop 39 -i "$CLIP" -c copy "$LONG"
log "clip made in $(secs "$t" "$(now)") s"
job() {
  case $1 in
    plain) $PD "$LONG" --decoder gpu --quiet --json ;;
    vulkan) $PD "$LONG" --decoder gpu --vulkan --quiet --json ;;
    framehash) $PD "$LONG" --decoder gpu --format native --framehash /dev/null --quiet --json ;;
  esac
}
for name in ${JOBS:-plain vulkan framehash}; do job "$name" >/dev/null 2>&1; done
for round in $(seq "${ROUNDS:-3}"); do
  for name in ${JOBS:-plain vulkan framehash}; do
    for n in ${SETTINGS:-8 16 32}; do
      t=$(now); PRORES_DECODE_READ_AHEAD=$n job "$name" >"$LOGDIR/out.json" 2>&1; rc=$?
      log "$name read-ahead $n: exit $rc, wall $(secs "$t" "$(now)") s; $(grep -o '"fps":[0-9.]*' "$LOGDIR/out.json" | head -1) $(grep -o '"first_frame_ms":[0-9.]*' "$LOGDIR/out.json")"
    done
  done
done
