#!/usr/bin/env bash
# Builds dist/: a self-contained x86-64 prores-decode for a machine with an
# NVIDIA GPU (Ubuntu 24.04: glibc, libstdc++/libgcc_s and the Vulkan loader, nothing else)
# plus a minimal static `ffmpeg` CLI to make 4K test clips and measure FFmpeg's
# software decoder there. See docs/gpu-machine.md.
#
#   scripts/build-bundle.sh            (or: make bundle)
#
# What it does, each step skipped when its output is already up to date:
#   1. FFmpeg from Debian's source package (/opt/src/ffmpeg-*, else
#      `apt-get source ffmpeg`), built out of tree twice:
#        .build-bundle/ffmpeg-static/{lib,include}  libavformat/avcodec/avutil .a
#                                                   with only what prores-decode uses
#        .build-bundle/ffmpeg-cli/ffmpeg            a minimal static ffmpeg CLI
#   2. prores-decode with `swift build --static-swift-stdlib` against those
#      archives (the static dir is searched before /usr/lib/x86_64-linux-gnu,
#      so the linker takes the .a although Debian's libav*.so are installed),
#      zlib linked statically too, and Foundation's ICU data trimmed to root +
#      English (34 MB -> 5 MB; BUNDLE_ICU=full keeps all of it).
#   3. dist/ : prores-decode.gz (stripped, gzip'd: gpu-machine.sh unpacks it),
#      ffmpeg (stripped), Fixtures (clips + ref), Shaders, gpu-machine.sh and
#      lib.sh (the benchmark set, docs/gpu-machine.md), prores-variants.sh,
#      bench-effects.sh, MANIFEST.txt.
#
# Environment: JOBS (make -j, default nproc), SWIFT (default swift),
# PACKAGE_DIR (the Swift package to bundle, default this checkout; handy to
# bundle a clean `git worktree` while Sources/ is being edited),
# FFMPEG_SRC (an unpacked FFmpeg source tree), BUNDLE_ICU (trim|full).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PACKAGE_DIR=$(cd "${PACKAGE_DIR:-$ROOT}" && pwd)
WORK=$ROOT/.build-bundle
DIST=$ROOT/dist
JOBS=${JOBS:-$(nproc)}
SWIFT=${SWIFT:-swift}
BUNDLE_ICU=${BUNDLE_ICU:-trim}
MAX_DIST_BYTES=40000000

PREFIX=$WORK/ffmpeg-static        # static libav* + headers + pkg-config files
LIB_BUILD=$WORK/ffmpeg-lib-build
CLI_BUILD=$WORK/ffmpeg-cli
EXTRA=$WORK/static-extra          # libz.a, libatomic.a: so -lz/-latomic link statically
ICU=$WORK/icu
SCRATCH=$WORK/swift

SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
log() { printf '\n== %s\n' "$*" >&2; }
die() { echo "build-bundle.sh: $*" >&2; exit 1; }

[ "$(uname -m)" = x86_64 ] || die "the bundle is x86-64; this machine is $(uname -m)"

# --- tools -----------------------------------------------------------------
need=(nasm zlib1g-dev libebur128-dev libpulse-dev pkg-config make gcc binutils python3 dpkg-dev xz-utils)
missing=()
for p in "${need[@]}"; do
  dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends "${missing[@]}"
fi
command -v "$SWIFT" >/dev/null || die "swift toolchain not found (expected on PATH)"

# --- FFmpeg source -----------------------------------------------------------
find_ffmpeg_src() {
  local d
  for d in "${FFMPEG_SRC:-}" /opt/src/ffmpeg-[0-9]* "$WORK"/src/ffmpeg-[0-9]*; do
    [ -n "$d" ] && [ -x "$d/configure" ] && { echo "$d"; return 0; }
  done
  return 1
}
if ! SRC=$(find_ffmpeg_src); then
  log "fetching Debian's FFmpeg source package (apt-get source ffmpeg)"
  mkdir -p "$WORK/src"
  (cd "$WORK/src" && apt-get source ffmpeg) || die "apt-get source ffmpeg failed (needs a deb-src entry)"
  SRC=$(find_ffmpeg_src) || die "no FFmpeg source tree after apt-get source"
fi
if [ -f "$SRC/config.h" ]; then
  # FFmpeg refuses out-of-tree builds from a tree configured in place: build from a copy.
  mkdir -p "$WORK/src"
  [ -d "$WORK/src/$(basename "$SRC")" ] || { cp -a "$SRC" "$WORK/src/" && (cd "$WORK/src/$(basename "$SRC")" && make distclean >/dev/null 2>&1 || true); }
  SRC=$WORK/src/$(basename "$SRC")
fi
FFMPEG_VERSION=$(cat "$SRC/VERSION" 2>/dev/null || basename "$SRC")
FFMPEG_DEB=$(sed -n '1s/.*(\(.*\)).*/\1/p' "$SRC/debian/changelog" 2>/dev/null || true)

# zlib (and libatomic, which FFmpeg's .pc files name but x86-64 never needs)
# from static archives only: a directory that holds just the .a files.
mkdir -p "$EXTRA"
for a in /usr/lib/x86_64-linux-gnu/libz.a "$(gcc -print-file-name=libatomic.a)"; do
  [ -f "$a" ] || die "missing $a"
  cmp -s "$a" "$EXTRA/$(basename "$a")" || cp "$a" "$EXTRA/"
done

# libebur128 (check's loudness): Debian ships no static archive, so its one
# C file, from Debian's source package, is built into one here.
if [ ! -f "$EXTRA/libebur128.a" ]; then
  EBUR=$WORK/ebur128
  rm -rf "$EBUR" && mkdir -p "$EBUR"
  # Only upstream's tarball is used: a mirror missing Debian's packaging
  # files fails the command but leaves the (checksummed) tarball.
  (cd "$EBUR" && apt-get source -q --download-only libebur128 >/dev/null 2>&1) || true
  ls "$EBUR"/libebur128_*.orig.tar.gz >/dev/null 2>&1 || die "apt-get source libebur128 (needs a deb-src entry)"
  tar -xzf "$EBUR"/libebur128_*.orig.tar.gz -C "$EBUR" || die "cannot unpack libebur128's source"
  src=$(ls "$EBUR"/libebur128-*/ebur128/ebur128.c | head -1)
  [ -f "$src" ] || die "no ebur128.c in libebur128's source"
  gcc -O2 -fPIC -c "$src" -I "$(dirname "$src")" -o "$EBUR/ebur128.o" || die "cannot build libebur128"
  ar rcs "$EXTRA/libebur128.a" "$EBUR/ebur128.o"
fi
# SwiftPM reads .pc files itself and keeps their -L of the system library
# folder, which would put Debian's libav*.so ahead of the static archives:
# CEBUR128's pkgConfig resolves to this file instead, pointing at $EXTRA.
mkdir -p "$EXTRA/pkgconfig"
cat > "$EXTRA/pkgconfig/libebur128.pc" <<PC
Name: libebur128
Description: EBU R 128 loudness (static, built for the bundle)
Version: 1.2.6
Libs: -L$EXTRA -lebur128
Cflags: -I/usr/include
PC

# --- FFmpeg configure lines (MANIFEST.txt records them verbatim) ------------
COMMON=(--disable-everything --disable-autodetect --disable-doc --disable-network
        --enable-static --disable-shared --enable-pic
        # --disable-autodetect also turns threads off: ask for them back.
        --enable-pthreads --enable-zlib --disable-iconv
        --disable-swresample --disable-postproc
        "--extra-ldflags=-L$EXTRA")
LIB_CONF=(--prefix="$PREFIX" "${COMMON[@]}" --disable-programs
          --disable-avdevice --disable-avfilter --disable-swscale
          # PCM and AAC: the sound `info`, `check` and `-o` read.
          --enable-decoder=prores,aac,pcm_s16le,pcm_s16be,pcm_s24le,pcm_s24be,pcm_s32le,pcm_s32be,pcm_f32le,pcm_f32be,pcm_f64le,pcm_f64be
          --enable-demuxer=mov,mxf,matroska
          --enable-protocol=file,pipe
          --enable-encoder=exr,png)
CLI_CONF=("${COMMON[@]}" --enable-ffmpeg --disable-ffprobe --disable-ffplay
          --enable-decoder=prores,rawvideo
          --enable-encoder=prores_ks,prores_aw,rawvideo,wrapped_avframe
          --enable-demuxer=mov
          --enable-muxer=mov,null,rawvideo,framemd5
          --enable-protocol=file,pipe
          --enable-indev=lavfi
          # the auto-inserted scale does the 10 <-> 16-bit conversions around noise
          --enable-swscale
          --enable-filter=testsrc2,format,null,noise,geq,scale,setfield)

# build_ffmpeg DIR WHAT CONFIGURE-ARGS...: configure + make in DIR, unless DIR
# already holds a finished build made with exactly these arguments.
build_ffmpeg() {
  local dir=$1 what=$2; shift 2
  local line="$SRC/configure $*"
  if [ -f "$dir/.configure-line" ] && [ "$(cat "$dir/.configure-line")" = "$line" ] && [ -f "$dir/.built" ]; then
    echo "  up to date ($dir)" >&2
    return 0
  fi
  rm -rf "$dir"; mkdir -p "$dir"
  local t0=$SECONDS
  (cd "$dir" && "$SRC/configure" "$@" >configure.log 2>&1) || { tail -30 "$dir/configure.log" >&2; die "configure failed ($what): $dir/configure.log"; }
  (cd "$dir" && make -j"$JOBS" >make.log 2>&1) || { tail -30 "$dir/make.log" >&2; die "make failed ($what): $dir/make.log"; }
  echo "$line" >"$dir/.configure-line"
  echo $((SECONDS - t0)) >"$dir/.build-seconds"
  touch "$dir/.built"
  echo "  built in $((SECONDS - t0)) s" >&2
}

log "FFmpeg $FFMPEG_VERSION libraries (static: ProRes, PCM and AAC decoders) from $SRC"
libs_ok=1
for l in avformat avcodec avutil; do [ -f "$PREFIX/lib/lib$l.a" ] || libs_ok=0; done
[ $libs_ok = 1 ] || rm -f "$LIB_BUILD/.built"
build_ffmpeg "$LIB_BUILD" libraries "${LIB_CONF[@]}"
if [ $libs_ok = 0 ] || [ "$LIB_BUILD/.built" -nt "$PREFIX/.installed" ]; then
  rm -rf "$PREFIX"
  (cd "$LIB_BUILD" && make install >install.log 2>&1) || die "make install failed: $LIB_BUILD/install.log"
  touch "$PREFIX/.installed"
fi

log "FFmpeg $FFMPEG_VERSION minimal ffmpeg CLI"
[ -x "$CLI_BUILD/ffmpeg" ] || rm -f "$CLI_BUILD/.built"
build_ffmpeg "$CLI_BUILD" "ffmpeg CLI" "${CLI_CONF[@]}"

# --- Foundation's ICU data, trimmed -----------------------------------------
# A static Foundation carries all of ICU's data (icudtNN_dat, 34 MB) although
# prores-decode never opens any of it. The linker's --wrap points ICU's one
# reference at a package holding root + English locale data and the core
# property/normalisation/time-zone tables; the original object is then never
# pulled from lib_FoundationICU.a. Other locales fall back to English.
SWIFT_STATIC=$(dirname "$(readlink -f "$(command -v "$SWIFT")")")/../lib/swift_static/linux
ICU_LDFLAGS=()
ICU_NOTE="full (BUNDLE_ICU=full)"
if [ "$BUNDLE_ICU" = trim ]; then
  ICU_SYM=$(nm "$SWIFT_STATIC/lib_FoundationICU.a" 2>/dev/null | awk '$2 == "R" && $3 ~ /^icudt[0-9]+_dat$/ && !f {print $3; f = 1}')
  if [ -z "$ICU_SYM" ]; then
    ICU_NOTE="full (no icudtNN_dat in $SWIFT_STATIC/lib_FoundationICU.a)"
  else
    log "trimming ICU data ($ICU_SYM)"
    mkdir -p "$ICU"
    member=$(nm -A "$SWIFT_STATIC/lib_FoundationICU.a" 2>/dev/null | awk -v s="$ICU_SYM" '$2 == "R" && $3 == s && !f {split($1, p, ":"); print p[2]; f = 1}')
    if [ ! -f "$ICU/lib${ICU_SYM}_trim.a" ] || [ "$ROOT/scripts/build-bundle.sh" -nt "$ICU/lib${ICU_SYM}_trim.a" ] || [ "$SWIFT_STATIC/lib_FoundationICU.a" -nt "$ICU/lib${ICU_SYM}_trim.a" ]; then
      (cd "$ICU" && ar x "$SWIFT_STATIC/lib_FoundationICU.a" "$member")
      objcopy -O binary --only-section=.rodata "$ICU/$member" "$ICU/full.dat"
      python3 - "$ICU/full.dat" "$ICU/trimmed.dat" >"$ICU/trim.log" <<'PY'
import re, struct, sys
src, dst = sys.argv[1], sys.argv[2]
d = open(src, 'rb').read()
hs = struct.unpack_from('<H', d, 0)[0]
assert d[2:4] == b'\xda\x27' and d[12:16] == b'CmnD', 'not an ICU common data package'
n = struct.unpack_from('<I', d, hs)[0]
ents = [struct.unpack_from('<II', d, hs + 4 + 8 * i) for i in range(n)]
items = []
for i, (no, do) in enumerate(ents):
    name = d[hs + no:d.index(b'\0', hs + no)].decode()
    end = ents[i + 1][1] if i + 1 < n else len(d) - hs
    items.append((name, d[hs + do:hs + end]))
EN = re.compile(r'(root|en|en_US|en_US_POSIX|en_001|en_150|en_GB)\.res$')
LOCALE = re.compile(r'[a-z]{2,3}(_[A-Za-z0-9]+)*\.res$')
def keep(name):
    path = name.split('/', 1)[1]
    if '/' not in path:
        if path.endswith('.cnv'):          # legacy code-page converters
            return False
        if path == 'res_index.res' or EN.match(path):
            return True
        return not LOCALE.match(path)      # pool, likelySubtags, zoneinfo64, ...
    sub, leaf = path.split('/', 1)
    if sub == 'translit':
        return False
    if sub == 'brkitr' and leaf.endswith('.dict'):   # CJK/Thai/... dictionaries
        return False
    if leaf in ('res_index.res', 'pool.res') or EN.match(leaf):
        return True
    return not LOCALE.match(leaf)          # ucadata.icu, *.brk, tzdbNames.res, ...
kept = [(nm, b) for nm, b in items if keep(nm)]
names = b''.join(nm.encode() + b'\0' for nm, _ in kept)   # still sorted: binary search
toc_len = 4 + 8 * len(kept)
data_at = (toc_len + len(names) + 15) & ~15
out = bytearray(d[:hs]) + struct.pack('<I', len(kept))
name_off, off, blobs = toc_len, data_at, []
for nm, b in kept:
    out += struct.pack('<II', name_off, off)
    name_off += len(nm.encode()) + 1
    b += b'\0' * (-len(b) % 16)
    blobs.append(b)
    off += len(b)
out += names
out += b'\0' * (hs + data_at - len(out))
for b in blobs:
    out += b
open(dst, 'wb').write(out)
print(f'kept {len(kept)} of {len(items)} items (root + English), {len(d) / 1e6:.1f} MB -> {len(out) / 1e6:.1f} MB')
PY
      cat >"$ICU/icudata.S" <<EOF
    .section .rodata.${ICU_SYM}_trim,"a",@progbits
    .globl __wrap_${ICU_SYM}
    .type __wrap_${ICU_SYM}, @object
    .balign 16
__wrap_${ICU_SYM}:
    .incbin "$ICU/trimmed.dat"
    .size __wrap_${ICU_SYM}, . - __wrap_${ICU_SYM}
    .section .note.GNU-stack,"",@progbits
EOF
      gcc -c "$ICU/icudata.S" -o "$ICU/icudata.o"
      rm -f "$ICU/lib${ICU_SYM}_trim.a"
      ar rcs "$ICU/lib${ICU_SYM}_trim.a" "$ICU/icudata.o"
      rm -f "$ICU/$member" "$ICU/full.dat"
    fi
    cat "$ICU/trim.log" >&2
    # An archive, not an object: pulled in only when ICU itself is linked.
    ICU_LDFLAGS=(-Xlinker "--wrap=$ICU_SYM" -Xlinker -L"$ICU" -Xlinker -l"${ICU_SYM}_trim")
    ICU_NOTE="trimmed: $(cat "$ICU/trim.log")"
  fi
fi

# --- prores-decode -------------------------------------------------------------
log "prores-decode (swift build --static-swift-stdlib) from $PACKAGE_DIR"
# PKG_CONFIG_PATH: CFFmpeg's pkgConfig "libavformat" resolves to the static
# prefix, so the headers are exactly those of the archives and SwiftPM adds
# -L$PREFIX/lib itself; the explicit -L keeps that order whatever SwiftPM does.
SWIFT_ARGS=(build --package-path "$PACKAGE_DIR" -c release --static-swift-stdlib
            --scratch-path "$SCRATCH" --product prores-decode
            -Xlinker -L"$PREFIX/lib" -Xlinker -L"$EXTRA"
            -Xlinker -lz -Xlinker -lm -Xlinker -lpthread
            "${ICU_LDFLAGS[@]}")
BIN_DIR=$(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig:$EXTRA/pkgconfig "$SWIFT" build --package-path "$PACKAGE_DIR" -c release \
          --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)
BIN=$BIN_DIR/prores-decode
# SwiftPM does not see the archives change: always relink (seconds).
rm -f "$BIN"
t0=$SECONDS
set +e
PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig:$EXTRA/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} "$SWIFT" "${SWIFT_ARGS[@]}" 2>&1 |
  grep -v "the use of \`mktemp' is dangerous" >&2
status=${PIPESTATUS[0]}
set -e
SWIFT_SECONDS=$((SECONDS - t0))
[ "$status" = 0 ] && [ -x "$BIN" ] || die "swift build failed (status $status, see above)"

# --- dist/ ---------------------------------------------------------------------
log "assembling $DIST"
rm -rf "$DIST"
mkdir -p "$DIST/Fixtures/ref"
# prores-decode ships gzip'd: stripped it is ~38 MB (glslang/SPIRV-Tools for
# shaderc, the Swift runtime and Foundation), 14 MB compressed; gpu-machine.sh
# unpacks it (gzip is on every Ubuntu). ffmpeg is 2 MB and ships as is.
STRIPPED=$WORK/prores-decode.stripped
strip -o "$STRIPPED" "$BIN"
gzip -9 -n -c "$STRIPPED" >"$DIST/prores-decode.gz"
strip -o "$DIST/ffmpeg" "$CLI_BUILD/ffmpeg"
shopt -s nullglob
for f in "$PACKAGE_DIR"/Fixtures/*.mov "$PACKAGE_DIR"/Fixtures/*.mxf "$PACKAGE_DIR"/Fixtures/*.prores; do cp "$f" "$DIST/Fixtures/"; done
cp -r "$PACKAGE_DIR"/Fixtures/ref/. "$DIST/Fixtures/ref/"
[ -d "$PACKAGE_DIR/Shaders" ] && cp -r "$PACKAGE_DIR/Shaders" "$DIST/Shaders"
for script in gpu-machine.sh device-engine.sh lib.sh prores-variants.sh bench-effects.sh; do cp "$ROOT/scripts/$script" "$DIST/$script"; done
# The licences the bundle's programs carry: ours, FFmpeg's LGPL (NOTICE says where its source is), libebur128's MIT.
cp "$ROOT/LICENSE" "$ROOT/NOTICE" "$DIST/"
cp /usr/share/common-licenses/LGPL-2.1 "$DIST/LICENSE.LGPL-2.1"
cp "$(ls "$WORK"/ebur128/libebur128-*/COPYING | head -1)" "$DIST/LICENSE.libebur128" || die "no libebur128 COPYING"
chmod +x "$DIST/gpu-machine.sh" "$DIST/device-engine.sh" "$DIST/prores-variants.sh" "$DIST/bench-effects.sh" "$DIST/ffmpeg"

# --- checks: what the GPU machine must provide ---------------------------------
# glibc's libraries, libstdc++/libgcc_s, libz (not even that, here) and, later, the Vulkan loader.
ALLOWED='^(libc\.so\.6|libm\.so\.6|libdl\.so\.2|libpthread\.so\.0|librt\.so\.1|libutil\.so\.1|ld-linux-x86-64\.so\.2|libstdc\+\+\.so\.6|libgcc_s\.so\.1|libz\.so\.1|libvulkan\.so\.1)$'
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
maxver() { { objdump -T "$1" | grep -oE "\\b$2_[0-9.]+" || true; } | sort -uV | tail -1; }
for b in "$STRIPPED" "$DIST/ffmpeg"; do
  bad=$(needed "$b" | grep -vE "$ALLOWED" || true)
  [ -z "$bad" ] || die "$b needs libraries the GPU machine lacks: $bad"
  # Ubuntu 24.04: glibc 2.39, libstdc++ of GCC 14 (GLIBCXX_3.4.33, CXXABI_1.3.15)
  for v in "GLIBC 2.39" "GLIBCXX 3.4.33" "CXXABI 1.3.15"; do
    set -- $v
    have=$(maxver "$b" "$1")
    [ -z "$have" ] || [ "$(printf '%s\n' "$1_$2" "$have" | sort -V | tail -1)" = "$1_$2" ] ||
      die "$b needs $have, newer than Ubuntu 24.04's $1_$2"
  done
done
"$STRIPPED" --version >/dev/null || die "prores-decode does not run"
"$DIST/ffmpeg" -hide_banner -version >/dev/null || die "dist/ffmpeg does not run"
gzip -dc "$DIST/prores-decode.gz" | cmp -s - "$STRIPPED" || die "prores-decode.gz does not unpack to the binary"

# --- MANIFEST.txt ----------------------------------------------------------------
secs() { cat "$1/.build-seconds" 2>/dev/null || echo "?"; }
{
  echo "prores-decode bundle for a machine with an NVIDIA GPU (Ubuntu 24.04, x86-64) -- see docs/gpu-machine.md"
  echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release && echo "$PRETTY_NAME"), glibc $(ldd --version | sed -n '1s/.* //p'), $(uname -m), $(nproc) cores"
  echo "source: $(git -C "$PACKAGE_DIR" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$PACKAGE_DIR" status --porcelain -- Sources Package.swift 2>/dev/null | grep -q . && echo ' + uncommitted changes in Sources/ or Package.swift')"
  echo "swift: $("$SWIFT" --version 2>/dev/null | head -1)"
  echo "ffmpeg: $FFMPEG_VERSION (Debian source package ${FFMPEG_DEB:-?}, $SRC)"
  echo "ICU data: $ICU_NOTE"
  echo "build seconds (make -j$JOBS, when last built): ffmpeg libraries $(secs "$LIB_BUILD"), ffmpeg CLI $(secs "$CLI_BUILD"), swift build ${SWIFT_SECONDS} (this run)"
  echo
  echo "configure (libraries, $LIB_BUILD):"
  echo "  $(cat "$LIB_BUILD/.configure-line")"
  echo "configure (ffmpeg CLI, $CLI_BUILD):"
  echo "  $(cat "$CLI_BUILD/.configure-line")"
  echo "swift:"
  echo "  PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig:$EXTRA/pkgconfig $SWIFT ${SWIFT_ARGS[*]}"
  echo
  echo "prores-decode (gunzip -c prores-decode.gz): $(stat -c %s "$STRIPPED") bytes, sha256 $(sha256sum "$STRIPPED" | cut -d' ' -f1)"
  for b in "$STRIPPED" "$DIST/ffmpeg"; do
    echo "$(basename "$b" .stripped): NEEDED $(needed "$b" | tr '\n' ' ')"
    echo "  newest symbol versions: $(maxver "$b" GLIBC) $(maxver "$b" GLIBCXX) $(maxver "$b" CXXABI)"
  done
  echo "prores-decode --version: $("$STRIPPED" --version 2>&1 | head -1)"
  echo "ffmpeg -version: $("$DIST/ffmpeg" -hide_banner -version | head -1)"
  echo
  echo "files (bytes, sha256, path):"
  (cd "$DIST" && find . -type f ! -name MANIFEST.txt | sed 's|^\./||' | LC_ALL=C sort | while read -r f; do
    printf '%10s  %s  %s\n' "$(stat -c %s "$f")" "$(sha256sum "$f" | cut -d' ' -f1)" "$f"
  done)
  echo "total: $(du -sb "$DIST" | cut -f1) bytes"
} >"$DIST/MANIFEST.txt"

total=$(du -sb "$DIST" | cut -f1)
[ "$total" -lt "$MAX_DIST_BYTES" ] || die "dist/ is $total bytes, over the $MAX_DIST_BYTES budget"
log "done: dist/ is $((total / 1000000)) MB"
ls -l "$DIST" >&2
echo "ldd prores-decode:" >&2; ldd "$STRIPPED" >&2
echo "ldd dist/ffmpeg:" >&2; ldd "$DIST/ffmpeg" >&2
