#!/usr/bin/env bash
# Issue #14's table, ON the lent GPU machine: the GPU decoder before (bundle
# A) and after (bundle B) on the same clips in one call, interleaved A B A B,
# then B's batch sizes, then B's bit-exactness on every clip it timed and on
# the fixtures (GPU decoder against FFmpeg's software decoder, per-frame
# BLAKE3 of the native frames).
#
#   scripts/device-decoder.sh DIST_A DIST_B LOGDIR
#
# Clips (bundled ffmpeg, prores_ks, testsrc2 with temporal grain unless
# noted) go to CLIPDIR: 1080p 422 HQ, 4K 422 HQ, 4K 4444 XQ without alpha,
# 8K (8192x4320) 422 HQ, and a 4K 4444 with a 16-bit alpha (no grain).
# Environment: FRAMES (bench frames, 1200), ROUNDS (2), BATCHES ("8 16 32
# 64"; empty: no sweep), SWEEP_CLIPS (the clips swept, "1080p-hq 4k-hq 8k-hq"), SKIP_CLIPS
# (names to leave out), SKIP_AB=1, SKIP_FILE=1,
# SKIP_EXACT=1, and VARIANTS: directories of shader variants (same host
# interface) timed against B's own Shaders with B's binary, interleaved;
# the exactness check then also runs each variant. ENVS: settings of B's
# environment (NAME=VALUE, several joined by commas), each timed against
# plain B, interleaved; EXACT_ENVS (same form, default none): settings the
# exactness check runs besides B's defaults. HTML=FILE: a
# `bench --html` page of the 4K HQ clip (cpu, gpu, gpu-host).
set -u
A=$1 B=$2 LOGDIR=${3:-/tmp/decoder}
CLIPDIR=${CLIPDIR:-/tmp/prores-decoder}
FRAMES=${FRAMES:-1200}
ROUNDS=${ROUNDS:-2}
BATCHES=${BATCHES-8 16 32 64}
mkdir -p "$LOGDIR" "$CLIPDIR"
export SWIFT_BACKTRACE=enable=no
log() { echo "$*" | tee -a "$LOGDIR/decoder.txt"; }

for side in A B; do
  dist=${!side}
  mkdir -p "/tmp/dec-$side"
  gunzip -c "$dist/prores-decode.gz" >"/tmp/dec-$side/prores-decode" && chmod +x "/tmp/dec-$side/prores-decode"
  rm -rf "/tmp/dec-$side/Shaders" && cp -r "$dist/Shaders" "/tmp/dec-$side/"
  log "$side: $(grep -m1 '^source' "$dist/MANIFEST.txt") $(grep -m1 '^built' "$dist/MANIFEST.txt")"
done
FF=$B/ffmpeg
# The NVIDIA ICD where the loader does not find it by itself.
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if ! /tmp/dec-B/prores-decode devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
log "device: $(/tmp/dec-B/prores-decode devices 2>&1 | grep -i -m1 nvidia)"
grain="noise=alls=24:allf=t+u"
alpha="geq=lum='lum(X,Y)':cb='cb(X,Y)':cr='cr(X,Y)':a='clip(1023*X/W+256*(Y/H-0.5)+8*N,0,1023)'"  # device-run.sh's
gen() { # NAME SIZE FRAMES PIXFMT FILTER ENCODER-ARGS...
  local name=$1 size=$2 frames=$3 pix=$4 filter=$5; shift 5
  local out=$CLIPDIR/$name.mov
  [ -s "$out" ] || "$FF" -nostdin -v error -y -f lavfi -i "testsrc2=size=$size:rate=25,format=$pix" -vf "$filter" \
    -frames:v "$frames" -c:v prores_ks "$@" -vendor apl0 "$out.tmp.mov" && mv "$out.tmp.mov" "$out"
  [ -s "$out" ] && log "clip $name: $frames frames, $(( $(stat -c %s "$out") / frames / 1000 )) kB/frame"
}
t0=$(date +%s)
want() { case " ${SKIP_CLIPS:-} " in *" $1 "*) return 1;; esac; }
want 1080p-hq && gen 1080p-hq 1920x1080 48 yuv422p10le "$grain" -profile:v hq
want 4k-hq && gen 4k-hq 3840x2160 48 yuv422p10le "$grain" -profile:v hq
want 4k-xq && gen 4k-xq 3840x2160 24 yuv444p10le "$grain" -profile:v 4444xq
want 8k-hq && gen 8k-hq 8192x4320 12 yuv422p10le "$grain" -profile:v hq
want 4k-4444-alpha && gen 4k-4444-alpha 3840x2160 24 yuva444p10le "$alpha" -profile:v 4444 -alpha_bits 16
log "clips made in $(( $(date +%s) - t0 )) s"
CLIPS=$(for c in 1080p-hq 4k-hq 4k-xq 8k-hq 4k-4444-alpha; do case " ${SKIP_CLIPS:-} " in *" $c "*) ;; *) printf '%s ' $c;; esac; done)

bench() { # SIDE CLIP [ARGS...] -> one line: fps, batch, host CPU, stage p50s
  local side=$1 clip=$2; shift 2
  local json
  json=$(timeout 120 "/tmp/dec-$side/prores-decode" bench "$CLIPDIR/$clip.mov" --decoders gpu --frames "$FRAMES" --json "$@" 2>"$LOGDIR/bench-err.txt")
  echo "$json" >>"$LOGDIR/bench-$side.json"
  local fps batch cpu stages
  fps=$(echo "$json" | grep -o '"decoder":"gpu"[^{]*"fps":[0-9.]*' | grep -o '"fps":[0-9.]*' | head -1 | cut -d: -f2)
  batch=$(echo "$json" | grep -o '"batch":[0-9]*' | head -1 | cut -d: -f2)
  cpu=$(echo "$json" | grep -o '"cpu_us_per_frame":[0-9.]*' | head -1 | cut -d: -f2)
  stages=$(for s in cpu_parse cpu_stage upload entropy transform gpu_total; do
    printf '%s=%s ' "$s" "$(echo "$json" | grep -o "\"$s\":{\"p50\":[0-9.]*" | head -1 | grep -o '[0-9.]*$')"; done)
  echo "fps=${fps:-FAILED} batch=${batch:-?} host_cpu_us=${cpu:-n/a} $stages"
}

[ -n "${SKIP_AB:-}" ] || for round in $(seq "$ROUNDS"); do
  for side in A B; do
    for clip in $CLIPS; do log "round $round $side $clip $(bench "$side" "$clip")"; done
  done
done
against_b() { # LABEL SETTING: B with SETTING (NAME=VALUE, commas join several) against plain B, interleaved
  for round in $(seq "$ROUNDS"); do
    for clip in $CLIPS; do
      log "round $round B $clip $(bench B "$clip")"
      log "round $round B+$1 $clip $(export $(echo "$2" | tr , ' '); bench B "$clip")"
    done
  done
}
for variant in ${VARIANTS:-}; do against_b "$(basename "$variant")" "PRORES_DECODE_SHADERS=$variant"; done
for setting in ${ENVS:-}; do against_b "$setting" "$setting"; done
[ -z "${HTML:-}" ] || timeout 300 /tmp/dec-B/prores-decode bench "$CLIPDIR/4k-hq.mov" --decoders cpu,gpu,gpu-host --frames "$FRAMES" \
  --html "$HTML" >"$LOGDIR/bench-html.txt" 2>&1 || log "bench --html failed: $(tail -1 "$LOGDIR/bench-html.txt")"
for clip in ${SWEEP_CLIPS:-1080p-hq 4k-hq 8k-hq}; do
  case " $CLIPS " in *" $clip "*) ;; *) continue;; esac
  for batch in $BATCHES; do log "batch $batch B $clip $(bench B "$clip" --batch "$batch")"; done
done

# From a file, whole process (page cache): 1,200 frames of 4K HQ, the clip looped.
[ -n "${SKIP_FILE:-}" ] || {
LONG=$CLIPDIR/4k-hq-x25.mov
[ -s "$LONG" ] || "$FF" -nostdin -v error -y -stream_loop 24 -i "$CLIPDIR/4k-hq.mov" -c copy "$LONG"
cat "$LONG" >/dev/null
TIMEFORMAT=%R
filerun() { # LABEL SIDE SETTING
  local wall
  wall=$( { time ( [ -z "$3" ] || export $(echo "$3" | tr , ' ')
    timeout 120 "/tmp/dec-$2/prores-decode" "$LONG" --decoder gpu --quiet --json >"$LOGDIR/file.json" 2>&1 ); } 2>&1 )
  log "file $1 4k-hq x25 (1200 frames) --decoder gpu: wall ${wall}s $(grep -o '"fps":[0-9.]*' "$LOGDIR/file.json" | tail -1)"
}
for side in A B A B; do filerun "$side" "$side" ""; done
for setting in ${ENVS:-}; do for round in 1 2; do filerun B B ""; filerun "B+$setting" B "$setting"; done; done
}

# Bit-exactness of B: GPU against FFmpeg's decoder (the CPU path), per-frame
# BLAKE3 of the native frames, on every clip above, the encoder matrix and
# every fixture.
[ -n "${SKIP_EXACT:-}" ] && exit 0
# The encoder matrix (every profile, slice width, matrix, alpha, interlacing).
"$B/prores-variants.sh" "$CLIPDIR/matrix" "$FF" >/dev/null 2>"$LOGDIR/matrix-err.txt" || log "encoder matrix: $(tail -1 "$LOGDIR/matrix-err.txt")"
for setting in "" ${EXACT_ENVS:-}; do
for shaders in ${EXACT_SHADERS:-$B/Shaders ${VARIANTS:-}}; do
export PRORES_DECODE_SHADERS=$shaders
exact=0 inexact=0
for f in $(for c in $CLIPS; do echo "$CLIPDIR/$c.mov"; done) "$CLIPDIR"/matrix/*.mov "$B"/Fixtures/*.mov "$B"/Fixtures/*.mxf "$B"/Fixtures/*.prores; do
  [ -s "$f" ] || continue
  gpu=$(env $(echo "$setting" | tr , ' ') timeout 120 /tmp/dec-B/prores-decode "$f" --decoder gpu --framehash - --quiet 2>"$LOGDIR/exact-err.txt"); g=$?
  if [ $g -ne 0 ] && grep -q "GPU decoder" "$LOGDIR/exact-err.txt"; then log "exact $(basename "$f"): not for the GPU decoder ($(head -1 "$LOGDIR/exact-err.txt"))"; continue; fi
  # FFmpeg's hashes, once per clip whatever the setting.
  key=$(echo "$f" | md5sum | cut -c1-16)
  [ -f "/tmp/cpu-hash-$key" ] || { timeout 120 /tmp/dec-B/prores-decode "$f" --decoder cpu --framehash - --quiet >"/tmp/cpu-hash-$key" 2>/dev/null; echo $? >"/tmp/cpu-exit-$key"; }
  cpu=$(cat "/tmp/cpu-hash-$key"); c=$(cat "/tmp/cpu-exit-$key")
  if [ "$gpu" = "$cpu" ] && [ $g -eq $c ] && [ -n "$gpu" ]; then exact=$((exact + 1)); else inexact=$((inexact + 1)); log "exact $(basename "$f"): DIFFERS (exit gpu $g cpu $c)"; fi
done
log "bit-exact on this GPU ($(basename "$shaders")${setting:+, $setting}): $exact clips identical, $inexact differ"
done
done
