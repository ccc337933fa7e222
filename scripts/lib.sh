# Helpers shared by the benchmark scripts (sourced, not run): logging, the
# bundle's binary, the Vulkan driver, clip generation, frame checksums.
# Timing itself is `prores-decode bench`'s, not the shell's.

# log TEXT...: to stdout and LOGDIR/summary.txt.
log() { echo "$*" | tee -a "$LOGDIR/summary.txt"; }
section() { log ""; log "===== $*"; }
# fail TEXT...: counted in FAILURES and listed in LOGDIR/failures.txt.
FAILURES=0
fail() { FAILURES=$((FAILURES + 1)); log "FAIL: $*"; echo "$*" >>"$LOGDIR/failures.txt"; }

# use_bundle DIR: sets PD (prores-decode) and FF (ffmpeg) from a `make bundle`
# output. The binary travels gzip'd; it is unpacked into BIN_DIR with Shaders/
# beside it (where it looks for them) and checked against MANIFEST.txt's sha256.
use_bundle() {
  local dir=$1
  BIN_DIR=${BIN_DIR:-/tmp/prores-bundle}
  mkdir -p "$BIN_DIR"
  gzip -dc "$dir/prores-decode.gz" >"$BIN_DIR/prores-decode.tmp" && chmod +x "$BIN_DIR/prores-decode.tmp" &&
    mv "$BIN_DIR/prores-decode.tmp" "$BIN_DIR/prores-decode" || { echo "cannot unpack $dir/prores-decode.gz into $BIN_DIR" >&2; exit 2; }
  rm -rf "$BIN_DIR/Shaders"
  cp -r "$dir/Shaders" "$BIN_DIR/Shaders"
  PD=$BIN_DIR/prores-decode FF=$dir/ffmpeg
  local want
  want=$(sed -n 's/^prores-decode (gunzip.*sha256 \([0-9a-f]*\).*/\1/p' "$dir/MANIFEST.txt" 2>/dev/null)
  [ -z "$want" ] || [ "$(sha256sum "$PD" | cut -d' ' -f1)" = "$want" ] || fail "the unpacked prores-decode does not match MANIFEST.txt"
}

# use_nvidia_driver: where the loader finds no device and NVIDIA's driver
# manifest sits outside its search path (as in some containers), point it there.
use_nvidia_driver() {
  local icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  "$PD" devices >/dev/null 2>&1 && return 0
  [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ] || return 1
  export VK_DRIVER_FILES=$icd
  "$PD" devices >/dev/null 2>&1
}

# make_clip OUT FRAMES GRAPH ENCODER-ARGS...: a clip from a lavfi graph, kept
# when it exists (a changed graph or size names a new file).
make_clip() {
  local out=$1 n=$2 graph=$3; shift 3
  [ -s "$out" ] && return 0
  "$FF" -nostdin -hide_banner -v error -y -f lavfi -i "$graph" -frames:v "$n" "$@" "$out.tmp.mov" >>"$LOGDIR/generate.txt" 2>&1 &&
    mv "$out.tmp.mov" "$out" || { rm -f "$out.tmp.mov"; fail "cannot make $out (generate.txt)"; return 1; }
}

# md5col FILE: the checksum column of a framemd5 listing.
md5col() { awk '!/^#/ && NF {print $NF}' "$1"; }
