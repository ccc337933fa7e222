#!/usr/bin/env bash
# Traced whole-process decodes of one file, by one or more bundles under
# several settings, ON the lent GPU machine (issue #14): where each run
# waits, and how many sample reads run at once. Each variant runs RUNS
# times (2), interleaved round by round; per run it prints the wall time,
# the run's fps and the trace's lines for the reader and the lane's
# threads (scripts/trace-summary.py, with `read sample`'s concurrency),
# then each variant's median wall time.
#
#   scripts/device-trace-variants.sh FILE LOGDIR VARIANT...
#
# VARIANT: BUNDLE[@NAME=VALUE[,NAME=VALUE...]], e.g. `dist`, `dist-A`,
# `dist@PRORES_DECODE_READ_NICE=10`. ARGS (default "--decoder gpu --quiet
# --json") are the decode's options.
set -u
FILE=$1 LOGDIR=$2; shift 2
RUNS=${RUNS:-2} ARGS=${ARGS:---decoder gpu --quiet --json}
mkdir -p "$LOGDIR"
export SWIFT_BACKTRACE=enable=no
HERE=$(cd "$(dirname "$0")" && pwd)
for variant in "$@"; do
  bundle=${variant%%@*} bin=/tmp/tv-bin/${variant%%@*}
  [ -x "$bin/prores-decode" ] && continue
  mkdir -p "$bin" && gunzip -c "$bundle/prores-decode.gz" >"$bin/prores-decode" && chmod +x "$bin/prores-decode"
  rm -rf "$bin/Shaders" && cp -r "$bundle/Shaders" "$bin/"
done
NVIDIA_ICD=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
first=/tmp/tv-bin/${1%%@*}/prores-decode
if ! $first devices 2>/dev/null | grep -qi nvidia && [ -f "$NVIDIA_ICD" ]; then export VK_DRIVER_FILES=$NVIDIA_ICD; fi
cat "$FILE" >/dev/null
for run in $(seq "$RUNS"); do
  i=0
  for variant in "$@"; do
    i=$((i + 1))
    settings=$([ "$variant" = "${variant#*@}" ] || echo "${variant#*@}" | tr ',' ' ')
    name=v$i-r$run trace=/tmp/tv-trace.json
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    env $settings PRORES_DECODE_TRACE=$trace timeout 120 "/tmp/tv-bin/${variant%%@*}/prores-decode" "$FILE" $ARGS >"$LOGDIR/$name.out" 2>&1
    rc=$? t1=$(date +%s.%N)
    wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    [ "$rc" = 0 ] && echo "$wall" >>"$LOGDIR/v$i.walls"
    python3 "$HERE/trace-summary.py" $trace --concurrency "read sample" >"$LOGDIR/$name.summary" 2>&1
    rm -f $trace
    # One line a run: wall, fps, then from the trace the batch parse's and
    # submit's mean µs, the time the decode waited for reads, the reads'
    # mean µs and how many ran at once (the whole summary is in LOGDIR).
    span() { awk -v n="$1" -v f="$2" 'index($0, "  " n " ") == 1 { for (i = 1; i <= NF; i++) if ($i == f || (f == "total" && $i ~ /^[0-9]+x$/)) { print $(i + 1); exit } }' "$LOGDIR/$name.summary"; }
    printf '%s run %s: exit %s, wall %s s, %s; parse %s µs, submit %s µs a batch; waited for reads %s ms; read %s µs, %s at once\n' \
      "$variant" "$run" "$rc" "$wall" "$(grep -o '"fps":[0-9.]*' "$LOGDIR/$name.out" | tail -1)" \
      "$(span "batch parsed" mean)" "$(span "batch staged and submitted" mean)" "$(span "wait for sample read" total)" \
      "$(span "read sample" mean)" "$(grep -o 'mean [0-9.]*$' "$LOGDIR/$name.summary" | tail -1 | cut -d' ' -f2)" | tee -a "$LOGDIR/variants.txt"
  done
done
i=0
for variant in "$@"; do
  i=$((i + 1))
  echo "median $variant: $(sort -n "$LOGDIR/v$i.walls" 2>/dev/null | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }') s ($(paste -sd' ' "$LOGDIR/v$i.walls" 2>/dev/null))" \
    | tee -a "$LOGDIR/variants.txt"
done
