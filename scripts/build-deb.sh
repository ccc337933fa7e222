#!/usr/bin/env bash
# Builds dist-deb/prores-decode_VERSION_ARCH.deb for Debian 12 (`make deb`).
#
#   1. A release build with --static-swift-stdlib (the Swift runtime is no
#      Debian package), in .build/deb so the usual builds keep theirs.
#   2. The package tree from `make install DESTDIR=... PREFIX=/usr`: the
#      binary (stripped; it carries its shaders), the man page (gzip'd, as
#      Debian keeps them) and the bash/zsh/fish completions.
#   3. DEBIAN/control: Depends from the shared libraries the binary needs
#      (dpkg-shlibdeps reads its NEEDED entries and the packages' symbols
#      files); the Vulkan loader, which the binary opens at run time and so
#      does not name, by hand; a Vulkan driver (Mesa: lavapipe and the GPUs'
#      drivers), libxcb and libpulse0 (`play`'s window and sound, also
#      opened at run time) as Recommends.
#
# Environment: SWIFT (default swift), OUT (default dist-deb).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
OUT=${OUT:-dist-deb}
SCRATCH=.build/deb
VERSION=$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/ProResCore/Version.swift)
ARCH=$(dpkg --print-architecture)
[ -n "$VERSION" ] || { echo "build-deb: no version in Sources/ProResCore/Version.swift" >&2; exit 1; }
command -v dpkg-shlibdeps >/dev/null || { echo "build-deb: dpkg-shlibdeps missing (apt-get install dpkg-dev)" >&2; exit 1; }

"$SWIFT" build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --product prores-decode
BIN=$("$SWIFT" build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)/prores-decode

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
ROOT=$WORK/root
make --no-print-directory install BIN="$BIN" DESTDIR="$ROOT" PREFIX=/usr >/dev/null
strip --strip-unneeded "$ROOT/usr/bin/prores-decode"
gzip -9 -n "$ROOT/usr/share/man/man1/prores-decode.1"
# Debian keeps each package's licence in /usr/share/doc/PACKAGE/copyright.
install -d "$ROOT/usr/share/doc/prores-decode"
cat NOTICE LICENSE >"$ROOT/usr/share/doc/prores-decode/copyright"

# dpkg-shlibdeps wants a source package around the binary: a minimal one.
mkdir -p "$WORK/src/debian"
printf 'Source: prores-decode\n\nPackage: prores-decode\nArchitecture: any\n' >"$WORK/src/debian/control"
SHLIBS=$(cd "$WORK/src" && dpkg-shlibdeps -O "-e$ROOT/usr/bin/prores-decode" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$SHLIBS" ] || { echo "build-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

mkdir -p "$ROOT/DEBIAN"
cat >"$ROOT/DEBIAN/control" <<CONTROL
Package: prores-decode
Version: $VERSION
Architecture: $ARCH
Maintainer: prores-decode <prores-decode@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)
Depends: $SHLIBS, libvulkan1
Recommends: mesa-vulkan-drivers, libxcb1, libpulse0
Suggests: ffmpeg
Section: video
Priority: optional
Description: decode Apple ProRes with FFmpeg or a bit-exact Vulkan decoder
 Reads ProRes from MOV, MXF and MKV; decodes with FFmpeg's CPU decoder or its
 own Vulkan compute decoder (bit-exact with FFmpeg); writes Apple's y416/v216
 layouts, FFmpeg's framemd5, EXR and PNG; converts to half-float linear
 Display P3 on the GPU; batch QC (check), benchmarks (bench) and a player.
CONTROL

mkdir -p "$OUT"
DEB=$OUT/prores-decode_${VERSION}_${ARCH}.deb
dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$DEB" >/dev/null
echo "$DEB"
