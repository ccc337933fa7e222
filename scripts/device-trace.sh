#!/usr/bin/env bash
# Where issue #11's whole-process jobs spend their time, ON the lent GPU
# machine: each job (1,920 frames of 4K HQ decoded plain, with --vulkan,
# --framehash and --framemd5; check of the 20-file folder) runs twice untimed by the
# trace, then once with PRORES_DECODE_TRACE, whose timeline and summary
# (scripts/trace-summary.py) land in LOGDIR. Then start-up alone: `devices`,
# and the loader's view of the drivers it loads.
#
#   scripts/device-trace.sh DIST LOGDIR
#
# Environment: CLIPDIR (/tmp/prores-check, shared with device-check.sh),
# SIZE (3840x2160), JOBS ("plain vulkan framehash framemd5 check"; without
# check only the long file is made, ~25 s on the H200 host),
# ENVS: settings (NAME=VALUE, several joined by commas) each job then runs
# with, ROUNDS times, interleaved with the defaults (X=0), untraced.
set -u
D=$1 LOGDIR=${2:-/tmp/trace}
CLIPDIR=${CLIPDIR:-/tmp/prores-check}
SIZE=${SIZE:-3840x2160}
JOBS=${JOBS:-plain vulkan framehash framemd5 check}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$LOGDIR" /tmp/trace-bin
export SWIFT_BACKTRACE=enable=no
log() { echo "$*" | tee -a "$LOGDIR/trace.txt"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }

gunzip -c "$D/prores-decode.gz" >/tmp/trace-bin/prores-decode && chmod +x /tmp/trace-bin/prores-decode
rm -rf /tmp/trace-bin/Shaders && cp -r "$D/Shaders" /tmp/trace-bin/
PD=/tmp/trace-bin/prores-decode
log "$(grep -m1 '^built' "$D/MANIFEST.txt")"
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! $PD devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
log "device: $($PD devices 2>&1 | grep -i -m1 nvidia)"
# Without `check` among the jobs, only the long file is needed.
case " $JOBS " in *" check "*) ;; *) export LONG_ONLY=1 ;; esac
bash "$HERE/check-folder.sh" "$D/ffmpeg" "$CLIPDIR" "$SIZE" | tee -a "$LOGDIR/trace.txt"
LONG=$CLIPDIR/hq-x40.mov
export PD LONG CLIPDIR

job() { # name
  case $1 in
    plain) $PD "$LONG" --decoder gpu --quiet --json ;;
    vulkan) $PD "$LONG" --decoder gpu --vulkan --quiet --json ;;
    framehash) $PD "$LONG" --decoder gpu --format native --framehash /dev/null --quiet --json ;;
    framemd5) $PD "$LONG" --decoder gpu --framemd5 /dev/null --quiet --json ;;
    check) $PD check "$CLIPDIR/folder" --decoder gpu ;;
  esac
}
for name in $JOBS; do
  job "$name" >/dev/null 2>&1  # warm the page cache and the driver's shader cache
  for round in 1 2; do
    t=$(now); job "$name" >"$LOGDIR/$name-$round.out" 2>&1; rc=$?
    log "$name untraced: exit $rc, wall $(secs "$t" "$(now)") s; $(grep -o '"fps":[0-9.]*' "$LOGDIR/$name-$round.out" | head -1)$(tail -1 "$LOGDIR/$name-$round.out" | grep TOTAL)"
  done
  t=$(now); PRORES_DECODE_TRACE=$LOGDIR/$name.trace.json job "$name" >"$LOGDIR/$name-traced.out" 2>&1; rc=$?
  log "$name traced: exit $rc, wall $(secs "$t" "$(now)") s"
  python3 "$HERE/trace-summary.py" "$LOGDIR/$name.trace.json" --over-time "read sample" --over-time "host memory imported" >"$LOGDIR/$name.summary.txt" 2>&1 || log "no summary for $name"
done

# Settings against the defaults, interleaved.
for name in $JOBS; do
  [ -z "${ENVS:-}" ] && break
  for round in $(seq "${ROUNDS:-2}"); do
    for setting in X=0 $ENVS; do
      t=$(now); env ${setting//,/ } bash -c "$(declare -f job); job $name" >"$LOGDIR/env.out" 2>&1; rc=$?
      log "$name $setting: exit $rc, wall $(secs "$t" "$(now)") s; $(grep -o '"fps":[0-9.]*' "$LOGDIR/env.out" | head -1) $(grep -o '"device_ready":[0-9.]*' "$LOGDIR/env.out") $(grep -o '"first_frame_ms":[0-9.]*' "$LOGDIR/env.out")$(tail -1 "$LOGDIR/env.out" | grep TOTAL)"
    done
  done
done

# Start-up alone: the process, instance and device without decoding.
for round in 1 2 3; do t=$(now); $PD devices >/dev/null 2>&1; log "devices: wall $(secs "$t" "$(now)") s"; done
VK_LOADER_DEBUG=driver $PD devices >"$LOGDIR/loader-drivers.txt" 2>&1
log "loader: $(grep -ci 'icd\|driver' "$LOGDIR/loader-drivers.txt") driver lines (loader-drivers.txt)"
