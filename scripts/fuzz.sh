#!/usr/bin/env bash
# libFuzzer over our untrusted-input parsing, with AddressSanitizer, for a
# bounded time. Three targets, one binary (PRORES_FUZZ_TARGET picks):
#   decode   any bytes (FuzzEntry.run: frame header, input sniffing,
#            elementary-stream and libavformat readers, decode session, packer)
#   tables   a clean MOV/MXF whose sample table / header partition is the
#            input (TableFuzzEntry: sample sizes, offsets, timescales, MXF index)
#   options  NUL-separated argument vectors (OptionFuzzEntry: the option
#            parser, its value conversions, --rate and its tick arithmetic)
#
#   scripts/fuzz.sh [--seconds N] [--jobs N] [--target NAME]... [-- LIBFUZZER_FLAGS...]
#   FUZZ_SECONDS=N scripts/fuzz.sh          (what `make fuzz` runs; default 60)
#
# --seconds is the whole run, shared equally by the targets (all three
# unless --target names some; FUZZ_TARGETS="decode tables" too).
# Builds into .build/fuzz (its own scratch path: the normal debug build is
# left alone), makes each target's seed corpus from Fixtures/ into
# .build/fuzz/seeds/TARGET (decode: first frames as raw elementary streams,
# one-frame MOV/MXF files, the bad inputs, Fixtures/fuzz/; tables: each
# template's own table and the hostile clips'; options: Fixtures/fuzz/options/),
# keeps what libFuzzer learns in .build/fuzz/corpus/TARGET, and prints
# executions/s and coverage per target. Every crash, leak, timeout or
# out-of-memory input is copied to Fixtures/fuzz/crash-* (decode) or
# Fixtures/fuzz/TARGET/crash-* (replayed by FuzzRegressionTests and
# FuzzSeedReplayTests) and the script exits 1.
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
JOBS=1
EXTRA=()
read -r -a TARGETS <<<"${FUZZ_TARGETS:-}"
TARGETS_GIVEN=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) SECONDS_TO_RUN=$2; shift 2 ;;
    --target) TARGETS_GIVEN+=("$2"); shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --) shift; EXTRA=("$@"); break ;;
    *) echo "fuzz.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
case "$SECONDS_TO_RUN" in ''|*[!0-9]*) echo "fuzz.sh: --seconds/FUZZ_SECONDS must be a whole number, not '$SECONDS_TO_RUN'" >&2; exit 2 ;; esac
case "$JOBS" in ''|*[!0-9]*|0) echo "fuzz.sh: --jobs must be a positive whole number, not '$JOBS'" >&2; exit 2 ;; esac
[ ${#TARGETS_GIVEN[@]} -gt 0 ] && TARGETS=("${TARGETS_GIVEN[@]}")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(decode tables options)
for target in "${TARGETS[@]}"; do
  case "$target" in decode|tables|options) ;; *) echo "fuzz.sh: unknown target '$target' (decode, tables, options)" >&2; exit 2 ;; esac
done
SHARE=$((SECONDS_TO_RUN / ${#TARGETS[@]}))

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
rm -rf "$WORK/seeds" "$WORK/findings"
mkdir -p Fixtures/fuzz
SEEDS=$WORK/seeds/decode
mkdir -p "$SEEDS"
echo "== seed corpora into $WORK/seeds" >&2
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
# tables: selector byte 0 + a MOV's moov (hq.mov's and the hostile
# copies', moov last), 1 + hq.mxf's header partition up to its essence.
mkdir -p "$WORK/seeds/tables" "$WORK/seeds/options"
python3 - "$WORK/seeds/tables" Fixtures/hq.mov Fixtures/hostile/*.mov Fixtures/hq.mxf Fixtures/hostile/*.mxf <<'PY'
import os, struct, sys
out = sys.argv[1]
essence = bytes.fromhex("060e2b34010201010d010301")
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    name = os.path.basename(path)
    if path.endswith(".mxf"):
        cut = data.find(essence)
        if cut > 0:
            open(os.path.join(out, "mxf-" + name), "wb").write(b"\x01" + data[:cut])
        continue
    at = 0
    while at + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[at:at + 8])
        if size < 8: break
        if kind == b"moov" and at + size == len(data) and data[:at] == open("Fixtures/hq.mov", "rb").read()[:at]:
            open(os.path.join(out, "mov-" + name), "wb").write(b"\x00" + data[at:])
        at += size
PY
for f in Fixtures/fuzz/tables/* Fixtures/fuzz/options/*; do
  if [ -f "$f" ]; then cp "$f" "$WORK/seeds/$(basename "$(dirname "$f")")/"; fi
done
cat >"$WORK/options.dict" <<'DICT'
"--rate"
"--frames"
"--start"
"--effect"
"--output"
"--device"
"-o"
"-i"
"-y"
"-n"
"--"
"-"
"="
"/"
"\x00"
"1001"
"30000"
"29.97"
"18446744073"
DICT
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

# One target for its share of the time: phase 1 fuzzes (memory errors,
# crashes, broken invariants, timeouts, single allocations over 4 GiB; leak
# checking per input needs full stack unwinding through FFmpeg, 4x slower,
# so it is off here; --jobs N runs N workers that libFuzzer restarts now
# and then), phase 2 runs every corpus input once with leak checking on,
# known leaks suppressed. Sets FOUND to the inputs saved.
fuzz_target() {
  local target=$1 seconds=$2
  local seeds=$WORK/seeds/$target corpus=$WORK/corpus/$target artifacts=$WORK/findings/$target
  local log=$WORK/last-run-$target.log leaklog=$WORK/leak-pass-$target.log dict=$WORK/prores.dict
  [ "$target" = options ] && dict=$WORK/options.dict
  mkdir -p "$corpus" "$artifacts"
  echo "== fuzzing $target for $seconds s ($JOBS job(s)); log: $log" >&2
  local fork=()
  [ "$JOBS" -gt 1 ] && fork=(-fork="$JOBS")
  set +e
  PRORES_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0 "$BIN" "$corpus" "$seeds" "${fork[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=8192 -malloc_limit_mb=4096 -detect_leaks=0 \
    -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    "${EXTRA[@]}" >"$log" 2>&1
  local status=$?
  if [ $status -eq 0 ]; then
    echo "== leak pass over the $target corpus; log: $leaklog" >&2
    PRORES_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 \
      LSAN_OPTIONS=suppressions="$WORK/known-leaks.supp" \
      "$BIN" "$corpus" "$seeds" -runs=0 -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$artifacts/" >"$leaklog" 2>&1
    local leakstatus=$?
    if [ $leakstatus -ne 0 ]; then status=$leakstatus; cat "$leaklog" >>"$log"; fi
  fi
  set -e

  # Numbers: libFuzzer's last status line and final statistics.
  local last runs rate cov ft corp pcs
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  corp=$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")
  pcs=$(sed -n 's/^INFO: Loaded [0-9]* modules *(\([0-9]*\) inline 8-bit counters).*/\1/p' "$log" | head -1 || true)
  # (--jobs prints no final statistics: count from its last status line.)
  [ -n "$runs" ] || runs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<<"$last")
  [ -n "$rate" ] || { [ -n "$runs" ] && [ "$seconds" -gt 0 ] && rate=$((runs / seconds)); } || true
  echo "fuzz $target: ${runs:-?} executions in $seconds s (${rate:-?} exec/s); coverage ${cov:-?} of ${pcs:-?} instrumented edges, ${ft:-?} features; corpus ${corp:-?} (inputs/bytes)"

  local found=0 artifact name dest=Fixtures/fuzz
  [ "$target" = decode ] || dest=Fixtures/fuzz/$target
  mkdir -p "$dest"
  for artifact in "$artifacts"/*; do
    [ -f "$artifact" ] || continue
    name=$(basename "$artifact")
    case "$name" in
      crash-*) name=$dest/$name ;;
      leak-*|timeout-*|oom-*) name=$dest/crash-$name ;;
      *) continue ;;
    esac
    cp "$artifact" "$name"
    found=$((found + 1))
    echo "fuzz $target: FOUND $name ($(stat -c %s "$name") bytes): $(od -An -tx1 -N48 "$name" | tr -d ' \n')..." >&2
  done
  if [ $found -gt 0 ]; then
    echo "fuzz $target: the report (from $log):" >&2
    # The first report: its headline and our frames (plus FFmpeg's), then the summary.
    awk '/broken invariant|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)/ { on = 1 }
         on && /broken invariant|ERROR: |#[0-9]+ 0x.* in .*(ProResDecode|prores_decode|ProRes|av[a-z_]+ )/ && !/fuzzer::/ { print; n++ }
         on && (/^$/ && n > 3 || n >= 25) { exit }' "$log" >&2 || true
    grep -m1 '^SUMMARY: ' "$log" >&2 || true
    echo "fuzz: replay one input: PRORES_FUZZ_TARGET=$target $BIN FILE  (or the plain build: swift build --product prores-decode-fuzz && PRORES_FUZZ_TARGET=$target .build/debug/prores-decode-fuzz FILE)" >&2
  elif [ $status -ne 0 ]; then
    tail -30 "$log" >&2
    echo "fuzz $target: libFuzzer exited with status $status without leaving an input" >&2
    found=1
  fi
  FOUND=$((FOUND + found))
}

FOUND=0
for target in "${TARGETS[@]}"; do fuzz_target "$target" "$SHARE"; done
[ $FOUND -eq 0 ] || exit 1
echo "fuzz: no crash (${TARGETS[*]}, $SHARE s each)"
