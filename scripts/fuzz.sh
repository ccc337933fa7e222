#!/usr/bin/env bash
# libFuzzer over our bitstream- and container-facing parsing (FuzzEntry.run:
# frame header, input sniffing, elementary-stream and libavformat readers,
# decode session, packer), with AddressSanitizer, for a bounded time.
#
#   scripts/fuzz.sh [--seconds N] [--jobs N] [-- LIBFUZZER_FLAGS...]
#   FUZZ_SECONDS=N scripts/fuzz.sh          (what `make fuzz` runs; default 60)
#
# Builds into .build/fuzz (its own scratch path: the normal debug build is
# left alone), makes a seed corpus from Fixtures/ into .build/fuzz/seeds
# (first frames as raw elementary streams, one-frame MOV/MXF files, the bad
# inputs, Fixtures/fuzz/), keeps what libFuzzer learns in .build/fuzz/corpus,
# and prints executions/s and coverage. Every crash, leak, timeout or
# out-of-memory input is copied to Fixtures/fuzz/crash-* (replayed by
# FuzzRegressionTests) and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
JOBS=1
EXTRA=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_TO_RUN=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
case "$SECONDS_TO_RUN" in ''|*[!0-9]*) echo "fuzz.sh: --seconds/FUZZ_SECONDS must be a whole number, not '$SECONDS_TO_RUN'" >&2; exit 2 ;; esac
case "$JOBS" in ''|*[!0-9]*|0) echo "fuzz.sh: --jobs must be a positive whole number, not '$JOBS'" >&2; exit 2 ;; esac

SWIFT=${SWIFT:-swift}
WORK=.build/fuzz
command -v "$SWIFT" >/dev/null || { echo "fuzz.sh: swift toolchain not found (expected on PATH)" >&2; exit 2; }
command -v ffmpeg >/dev/null || { echo "fuzz.sh: ffmpeg CLI missing (apt-get install ffmpeg)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "fuzz.sh: python3 missing" >&2; exit 2; }

# -sanitize=fuzzer links libFuzzer and instruments every Swift module for
# coverage; FUZZING drops the replay tool's @main (libFuzzer drives instead).
# FFmpeg's own code is not instrumented: a crash inside it still shows as a
# signal, but coverage counts our code only.
echo "== building the fuzz target (debug, -sanitize=fuzzer,address) into $WORK" >&2
mkdir -p "$WORK"
# (Another SwiftPM using the same scratch path makes this one wait, not fail.)
if ! "$SWIFT" build -c debug --product prores-decode-fuzz --scratch-path "$WORK" \
     -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING >"$WORK/build.log" 2>&1; then
  grep -v "Cannot export local symbol" "$WORK/build.log" | tail -40 >&2
  echo "fuzz.sh: build failed (full log: $WORK/build.log)" >&2
  exit 2
fi
BIN=$WORK/debug/prores-decode-fuzz

# Seeds: small, regenerated every run (cheap), never committed.
SEEDS=$WORK/seeds
CORPUS=$WORK/corpus
ARTIFACTS=$WORK/findings
rm -rf "$SEEDS" "$ARTIFACTS"
mkdir -p "$SEEDS" "$CORPUS" "$ARTIFACTS" Fixtures/fuzz
echo "== seed corpus into $SEEDS" >&2
for clip in Fixtures/*.mov Fixtures/*.mxf; do
  name=$(basename "$clip"); name=${name%.*}-${clip##*.}
  # The raw ProRes frames, back to back (an elementary stream)...
  ffmpeg -v error -y -i "$clip" -map 0:v:0 -c copy -f rawvideo "$SEEDS/.es" </dev/null
  python3 - "$SEEDS/.es" "$SEEDS/es-$name" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
frames, offset = [], 0
while offset + 8 <= len(data) and data[offset + 4:offset + 8] == b"icpf":
    size = int.from_bytes(data[offset:offset + 4], "big")
    frames.append(data[offset:offset + size]); offset += size
open(sys.argv[2] + "-frame0", "wb").write(frames[0])
open(sys.argv[2] + "-frames01", "wb").write(b"".join(frames[:2]))
PY
done
rm -f "$SEEDS/.es"
# ...and a few one-frame containers for the libavformat path.
for clip in proxy interlaced-tff 4444-alpha8 odd-size; do
  ffmpeg -v error -y -i "Fixtures/$clip.mov" -map 0:v:0 -c copy -frames:v 1 -f mov "$SEEDS/mov-$clip-frame0" </dev/null
done
ffmpeg -v error -y -i Fixtures/hq.mxf -map 0:v:0 -c copy -frames:v 1 -f mxf "$SEEDS/mxf-hq-frame0" </dev/null
# Pictures taller than 128 rows (the packer splits those into bands), odd sizes.
ffmpeg -v error -y -f lavfi -i testsrc2=size=48x136:rate=25 -frames:v 1 -pix_fmt yuv422p10le \
  -c:v prores_ks -profile:v hq -threads 1 -f rawvideo "$SEEDS/es-tall-hq-frame0" </dev/null
ffmpeg -v error -y -f lavfi -i testsrc2=size=35x131:rate=25 -frames:v 1 -vf format=yuva444p10le \
  -c:v prores_ks -profile:v 4444 -threads 1 -f rawvideo "$SEEDS/es-tall-4444-alpha-frame0" </dev/null
for f in Fixtures/bad/* Fixtures/fuzz/*; do
  case "$f" in *.md) continue ;; esac
  if [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 65536 ]; then
    cp "$f" "$SEEDS/$(basename "$(dirname "$f")")-$(basename "$f")"
  fi
done
cat >"$WORK/prores.dict" <<'DICT'
"icpf"
"apl0"
"fmpg"
"apch"
"apcn"
"apcs"
"apco"
"ap4h"
"ap4x"
"ftyp"
"moov"
"mdat"
"trak"
"stsd"
"stsz"
"stco"
"co64"
"stts"
"fiel"
"colr"
"nclc"
"\x00\x94"
"\x00\x14"
DICT

# Leaks known to be bugs in our code (each with a failing FuzzRegressionTests
# test), suppressed so that the leak pass can find new ones; one LSan
# suppression per line ("leak:<function in the allocation stack>"), deleted
# with its fix. FUZZ_KNOWN_LEAKS=report runs without them. None at present:
# the three the fuzzer found (AssetReader.init from a file and from stdin,
# ElementaryStreamReader.init) were fixed in 56709ea.
cat >"$WORK/known-leaks.supp" <<'SUPP'
SUPP
[ "${FUZZ_KNOWN_LEAKS:-suppress}" = report ] && : >"$WORK/known-leaks.supp"

LOG=$WORK/last-run.log
# Phase 1, for the time asked: memory errors, crashes, broken invariants,
# timeouts, single allocations over 4 GiB. Leak checking per input needs full
# stack unwinding through FFmpeg (4x slower), so it is off here... (--jobs N
# runs N workers that libFuzzer restarts now and then: for long runs.)
echo "== fuzzing for $SECONDS_TO_RUN s ($JOBS job(s)); log: $LOG" >&2
FORK=()
[ "$JOBS" -gt 1 ] && FORK=(-fork="$JOBS")
set +e
ASAN_OPTIONS=detect_leaks=0 "$BIN" "$CORPUS" "$SEEDS" "${FORK[@]}" \
  -max_total_time="$SECONDS_TO_RUN" -timeout=10 -rss_limit_mb=8192 -malloc_limit_mb=4096 -detect_leaks=0 \
  -dict="$WORK/prores.dict" -artifact_prefix="$ARTIFACTS/" -print_final_stats=1 \
  "${EXTRA[@]}" >"$LOG" 2>&1
status=$?
# ...phase 2 runs every corpus input once with it on, known leaks suppressed.
leaklog=$WORK/leak-pass.log
if [ $status -eq 0 ]; then
  echo "== leak pass over the corpus; log: $leaklog" >&2
  ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions="$WORK/known-leaks.supp" \
    "$BIN" "$CORPUS" "$SEEDS" -runs=0 -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$ARTIFACTS/" >"$leaklog" 2>&1
  leakstatus=$?
  if [ $leakstatus -ne 0 ]; then status=$leakstatus; cat "$leaklog" >>"$LOG"; fi
fi
set -e

# Numbers: libFuzzer's last status line and final statistics.
last=$(grep -E '^#[0-9]+' "$LOG" | tail -1 || true)
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$LOG" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$LOG" | tail -1)
cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
pcs=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$LOG" | head -1 || true)
# (--jobs prints no final statistics: count from its last status line.)
[ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
[ -n "$rate" ] || { [ -n "$runs" ] && [ "$SECONDS_TO_RUN" -gt 0 ] && rate=$((runs / SECONDS_TO_RUN)); } || true
echo "fuzz: ${runs:-?} executions in $SECONDS_TO_RUN s (${rate:-?} exec/s); coverage ${cov:-?} of ${pcs:-?} instrumented edges, ${ft:-?} features; corpus ${corp:-?} (inputs/bytes)"

found=0
for artifact in "$ARTIFACTS"/*; do
  [ -f "$artifact" ] || continue
  name=$(basename "$artifact")
  case "$name" in
    crash-*) target=Fixtures/fuzz/$name ;;
    leak-*|timeout-*|oom-*) target=Fixtures/fuzz/crash-$name ;;
    *) continue ;;
  esac
  cp "$artifact" "$target"
  found=$((found + 1))
  echo "fuzz: FOUND $target ($(stat -c %s "$target") bytes): $(od -An -tx1 -N48 "$target" | tr -d ' \n')..." >&2
done
if [ $found -gt 0 ]; then
  echo "fuzz: the report (from $LOG):" >&2
  # The first report: its headline and our frames (plus FFmpeg's), then the summary.
  awk '/broken invariant|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)/ { on = 1 }
       on && /broken invariant|ERROR: |#[0-9]+ 0x.* in .*(ProResDecode|prores_decode|av[a-z_]+ )/ && !/fuzzer::/ { print; n++ }
       on && (/^$/ && n > 3 || n >= 25) { exit }' "$LOG" >&2 || true
  grep -m1 '^SUMMARY: ' "$LOG" >&2 || true
  echo "fuzz: replay one input: $BIN FILE  (or the plain build: swift build --product prores-decode-fuzz && .build/debug/prores-decode-fuzz FILE)" >&2
  exit 1
fi
if [ $status -ne 0 ]; then
  tail -30 "$LOG" >&2
  echo "fuzz: libFuzzer exited with status $status without leaving an input" >&2
  exit 1
fi
echo "fuzz: no crash"
