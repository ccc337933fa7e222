#!/usr/bin/env bash
# Several bundles, interleaved, ON the lent GPU machine: each round runs a
# plain GPU decode of the 1,920-frame 4K HQ file and `check --golden` of
# check-folder.sh's 20-file folder for every bundle in turn, each under
# scripts/exit-time.py (wall time, time to the last line, exit). Medians of
# several rounds are what to compare: hosts differ between calls and runs
# move ±10% within one. The first bundle writes the golden file; every
# other one must verify it (and so match its hashes on all 864 frames).
#
#   scripts/device-interleave.sh LOGDIR LABEL=DIST[@VAR=VALUE,...] [...]
#
# A label's settings after `@` are set in the environment of its runs only,
# so one bundle can be timed against itself with a switch turned on.
#
# Environment: ROUNDS (6), CLIPDIR (/tmp/prores-check), JOBS ("plain check";
# add "long" for `check --golden` of the folder ten times over, 200 links
# to its 20 files, 8,640 frames: issue #11's rate once the driver's fixed
# start and exit are spread), CPU_CHECK=1 (the first bundle's `check
# --decoder cpu` of the folder once, ~20 s on the H200, for the GPU/CPU
# ratio), SIZE (3840x2160; smaller for a trial of the script on lavapipe).
# Ninth session: A, D and B six rounds each in ~90 s plus ~75 s of clips.
set -u
LOGDIR=$1; shift
ROUNDS=${ROUNDS:-6} CLIPDIR=${CLIPDIR:-/tmp/prores-check} JOBS=${JOBS:-plain check} SIZE=${SIZE:-3840x2160}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$LOGDIR"
export SWIFT_BACKTRACE=enable=no
labels=()
declare -A settings
for pair in "$@"; do
  label=${pair%%=*} dist=${pair#*=} settings[$label]=
  if [[ $dist == *@* ]]; then settings[$label]=${dist#*@} dist=${dist%%@*}; fi
  mkdir -p "/tmp/il-$label" && gunzip -c "$dist/prores-decode.gz" >"/tmp/il-$label/prores-decode" && chmod +x "/tmp/il-$label/prores-decode"
  rm -rf "/tmp/il-$label/Shaders" && cp -r "$dist/Shaders" "/tmp/il-$label/"
  echo "$label: $(grep -m1 '^built' "$dist/MANIFEST.txt") ${settings[$label]}" | tee -a "$LOGDIR/interleave.txt"
  labels+=("$label") FF=$dist/ffmpeg
done
bash "$HERE/check-folder.sh" "$FF" "$CLIPDIR" "$SIZE" >/dev/null 2>&1
LONG=$CLIPDIR/hq-x40.mov DIR=$CLIPDIR/folder TENFOLD=$CLIPDIR/folder-x10
cat "$LONG" "$DIR"/* >/dev/null
if [[ " $JOBS " == *" long "* ]]; then
  rm -rf "$TENFOLD" && mkdir -p "$TENFOLD"
  for copy in 0 1 2 3 4 5 6 7 8 9; do
    for file in "$DIR"/*; do ln -s "$file" "$TENFOLD/$copy-$(basename "$file")"; done
  done
fi
first=${labels[0]}
"/tmp/il-$first/prores-decode" check "$DIR" --decoder gpu --write-golden "$LOGDIR/golden.txt" --overwrite >/dev/null 2>&1
[[ " $JOBS " == *" long "* ]] && "/tmp/il-$first/prores-decode" check "$TENFOLD" --decoder gpu --write-golden "$LOGDIR/golden-x10.txt" --overwrite >/dev/null 2>&1
for label in "${labels[@]:1}"; do
  env ${settings[$label]//,/ } "/tmp/il-$label/prores-decode" check "$DIR" --decoder gpu --golden "$LOGDIR/golden.txt" >/dev/null 2>&1 \
    && echo "$label: hashes equal $first's on all 864 frames" || echo "$label: FAIL: hashes differ from $first's"
done | tee -a "$LOGDIR/interleave.txt"
if [ -n "${CPU_CHECK:-}" ]; then
  python3 "$HERE/exit-time.py" --label "cpu $first r1" "/tmp/il-$first/prores-decode" check "$DIR" --decoder cpu --golden "$LOGDIR/golden.txt" \
    2>&1 | tee -a "$LOGDIR/interleave.txt"
fi
for round in $(seq "$ROUNDS"); do
  for job in $JOBS; do
    for label in "${labels[@]}"; do
      P=/tmp/il-$label/prores-decode E=(env ${settings[$label]//,/ })
      case $job in
        plain) "${E[@]}" python3 "$HERE/exit-time.py" --label "plain $label r$round" "$P" "$LONG" --decoder gpu --quiet --json ;;
        check) "${E[@]}" python3 "$HERE/exit-time.py" --label "check $label r$round" "$P" check "$DIR" --decoder gpu --golden "$LOGDIR/golden.txt" ;;
        long) "${E[@]}" python3 "$HERE/exit-time.py" --label "long $label r$round" "$P" check "$TENFOLD" --decoder gpu --golden "$LOGDIR/golden-x10.txt" ;;
      esac
    done
  done
done 2>&1 | sed -E 's/last: .*"fps":([0-9.]+).*/fps in the run \1/' | tee -a "$LOGDIR/interleave.txt"
python3 - "$LOGDIR/interleave.txt" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\w+) (\S+) r\d+: .*wall ([0-9.]+) ms", line)
    if m: runs.setdefault((m.group(1), m.group(2)), []).append(float(m.group(3)))
frames = {"check": 864, "long": 8640, "cpu": 864, "plain": 1920}
for (job, label), walls in sorted(runs.items()):
    median = statistics.median(walls)
    print(f"{job} {label}: median {median:.1f} ms (min {min(walls):.1f}, max {max(walls):.1f}, {len(walls)} runs)"
          f" = {frames[job] * 1000 / median:.0f} fps of wall time")
PY
