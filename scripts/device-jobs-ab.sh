#!/usr/bin/env bash
# Issue #11's whole-process jobs, ON the lent GPU machine, for two bundles
# in one call, interleaved A B A B: `check --decoder gpu` over device-check.sh's
# folder (16 4K 422 HQ files of 48 frames, 4 4K 4444 XQ of 24), and one
# 1,920-frame 4K HQ file decoded plain, with --vulkan and with --framehash;
# then --framemd5 and check --previews once each. Every line gives the wall
# time, fps of wall time and (for single files) the run's own fps and its
# start-up. A's GPU check writes the golden file both then verify, so the
# two bundles' hashes are compared on every frame too.
#
#   scripts/device-jobs-ab.sh DIST_A DIST_B LOGDIR
#
# Environment: CLIPDIR (/tmp/prores-check, shared with device-check.sh),
# ROUNDS (2), SIZE (3840x2160), SKIP_PREVIEWS_A=1, SKIP_PREVIEWS=1, SKIP_MD5=1,
# EXTRA_CHECKS: more `check` runs of B each round, "LABEL ARGS|LABEL ARGS"
# (say "jobs2 --jobs 2"); ARGS may start with NAME=VALUE settings of the
# environment ("unshared PRORES_DECODE_SHARED_SESSION=0"). Lines end with what the device's buffers held at
# most, where the bundle reports it (--json's gpu_memory_peak_mb; check's
# --verbose note). HELD_ROUNDS=N: N more rounds of B while another process
# (PyTorch, holding a CUDA context) keeps the GPU open, as nvidia-persistenced
# would: what a process pays to bring the GPU up and down when it is the
# GPU's only client (`nvidia-smi -q`'s persistence mode is logged first).
set -u
A=$1 B=$2 LOGDIR=${3:-/tmp/jobs}
CLIPDIR=${CLIPDIR:-/tmp/prores-check}
ROUNDS=${ROUNDS:-2}
SIZE=${SIZE:-3840x2160}
mkdir -p "$LOGDIR" "$CLIPDIR"
export SWIFT_BACKTRACE=enable=no
log() { echo "$*" | tee -a "$LOGDIR/jobs.txt"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }

for side in A B; do
  dist=${!side}
  mkdir -p "/tmp/jobs-$side"
  gunzip -c "$dist/prores-decode.gz" >"/tmp/jobs-$side/prores-decode" && chmod +x "/tmp/jobs-$side/prores-decode"
  rm -rf "/tmp/jobs-$side/Shaders" && cp -r "$dist/Shaders" "/tmp/jobs-$side/"
  log "$side: $(grep -m1 '^built' "$dist/MANIFEST.txt")"
done
FF=$B/ffmpeg
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! /tmp/jobs-B/prores-decode devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
log "device: $(/tmp/jobs-B/prores-decode devices 2>&1 | grep -i -m1 nvidia)"

# The folder device-check.sh times, and the 1,920-frame file.
DIR=$CLIPDIR/folder
t0=$(now)
bash "$(dirname "$0")/check-folder.sh" "$FF" "$CLIPDIR" "$SIZE" | tee -a "$LOGDIR/jobs.txt"
FRAMES=$((16 * 48 + 4 * 24))
LONG=$CLIPDIR/hq-x40.mov
log "folder: $(ls "$DIR" | wc -l) files, $FRAMES frames; long file 1920 frames (made in $(secs "$t0" "$(now)") s)"

check() { # side label [NAME=VALUE...] args...
  local side=$1 label=$2; shift 2
  local envs=()
  while [[ "${1:-}" == *=* ]]; do envs+=("$1"); shift; done
  local t=$(now)
  env "${envs[@]}" "/tmp/jobs-$side/prores-decode" check "$DIR" "$@" >"$LOGDIR/check-$side-$label.stderr" 2>&1
  local rc=$? s=$(secs "$t" "$(now)")
  log "check $side $label: exit $rc, wall $s s = $(ratio "$FRAMES" "$s") fps ($(tail -1 "$LOGDIR/check-$side-$label.stderr")) $(grep -o 'buffers held at most.*' "$LOGDIR/check-$side-$label.stderr" | head -1) $(grep -o 'shared decode session: .*' "$LOGDIR/check-$side-$label.stderr" | head -1)"
}
row() { # side label args...
  local side=$1 label=$2; shift 2
  local t=$(now)
  "/tmp/jobs-$side/prores-decode" "$LONG" --quiet --json "$@" >"$LOGDIR/row-$side-$label.json" 2>"$LOGDIR/row-$side-$label.stderr"
  local rc=$? s=$(secs "$t" "$(now)")
  local json=$(tail -1 "$LOGDIR/row-$side-$label.json")
  log "1920 frames $side $label: exit $rc, wall $s s = $(ratio 1920 "$s") fps; in run $(echo "$json" | grep -o '"fps":[0-9.]*' | head -1); $(echo "$json" | grep -o '"startup_ms":{[^}]*}'); $(echo "$json" | grep -o '"first_frame_ms":[0-9.]*'); $(echo "$json" | grep -o '"frames_before_handover":[0-9]*'); $(echo "$json" | grep -o '"decoder":"[^"]*"'); $(echo "$json" | grep -o '"gpu_memory_peak_mb":{[^}]*}')"
}
# Warm the driver's shader cache for both, and write the golden file (A's hashes, B verifies them).
/tmp/jobs-A/prores-decode check "$DIR" --decoder gpu --write-golden "$LOGDIR/golden-A.txt" --overwrite >/dev/null 2>&1
/tmp/jobs-B/prores-decode check "$DIR" --decoder gpu --golden "$LOGDIR/golden-A.txt" >/dev/null 2>&1 \
  && log "B's hashes equal A's on all $FRAMES frames" || log "FAIL: B's hashes differ from A's (or B's check failed)"
for side in A B; do "/tmp/jobs-$side/prores-decode" "$LONG" --decoder gpu --vulkan --quiet >/dev/null 2>&1; done
# The handover's hashes: FFmpeg's first frames and the GPU decoder's rest equal the GPU decoder's alone.
if "/tmp/jobs-B/prores-decode" "$LONG" --format native --framehash "$LOGDIR/auto.b3" --overwrite --quiet \
   && "/tmp/jobs-B/prores-decode" "$LONG" --decoder gpu --format native --framehash "$LOGDIR/gpu.b3" --overwrite --quiet \
   && cmp -s "$LOGDIR/auto.b3" "$LOGDIR/gpu.b3"; then log "B auto (handover) hashes equal B gpu's on all 1920 frames"; else log "FAIL: B auto's hashes differ from B gpu's"; fi
for round in $(seq "$ROUNDS"); do
  for side in A B; do
    check $side gpu --decoder gpu --golden "$LOGDIR/golden-A.txt" --verbose
    if [ "$side" = B ] && [ -n "${EXTRA_CHECKS:-}" ]; then
      IFS='|' read -ra extras <<<"$EXTRA_CHECKS"
      for extra in "${extras[@]}"; do
        read -ra words <<<"$extra"
        check B "${words[0]}" "${words[@]:1}" --decoder gpu --golden "$LOGDIR/golden-A.txt" --verbose
      done
    fi
    row $side plain --decoder gpu
    row $side vulkan --decoder gpu --vulkan
    row $side framehash --decoder gpu --format native --framehash /dev/null
    # The default decoder (auto): FFmpeg's first frames while the device starts, where the bundle has the handover.
    row $side auto-framehash --format native --framehash /dev/null
  done
done
if [ "${HELD_ROUNDS:-0}" -gt 0 ]; then
  log "persistence mode: $(nvidia-smi -q 2>/dev/null | grep -m1 -i 'persistence mode' | sed 's/.*: //')"
  python3 -c 'import torch, time; torch.zeros(1, device="cuda"); print("held", flush=True); time.sleep(3600)' >"$LOGDIR/holder.txt" 2>&1 &
  holder=$!
  for _ in $(seq 120); do grep -q held "$LOGDIR/holder.txt" 2>/dev/null && break; sleep 0.5; done
  if grep -q held "$LOGDIR/holder.txt"; then
    for round in $(seq "$HELD_ROUNDS"); do
      check B held-gpu --decoder gpu --golden "$LOGDIR/golden-A.txt" --verbose
      row B held-plain --decoder gpu
      row B held-vulkan --decoder gpu --vulkan
      row B held-framehash --decoder gpu --format native --framehash /dev/null
      t=$(now); /tmp/jobs-B/prores-decode devices >/dev/null 2>&1; log "devices B held: wall $(secs "$t" "$(now)") s"
    done
  else
    log "no holder: $(tail -2 "$LOGDIR/holder.txt")"
  fi
  kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
  for _ in 1 2; do t=$(now); /tmp/jobs-B/prores-decode devices >/dev/null 2>&1; log "devices B alone: wall $(secs "$t" "$(now)") s"; done
fi
if [ -z "${SKIP_MD5:-}" ]; then for side in A B; do row $side framemd5 --decoder gpu --framemd5 /dev/null; done; fi
for side in A B; do
  [ -n "${SKIP_PREVIEWS:-}" ] && continue
  [ "$side" = A ] && [ -n "${SKIP_PREVIEWS_A:-}" ] && continue
  check $side previews --decoder gpu --golden "$LOGDIR/golden-A.txt" --previews "$CLIPDIR/previews-$side" --overwrite
done
ls -la "$CLIPDIR/previews-B" 2>/dev/null | head -5 | tee -a "$LOGDIR/jobs.txt"
