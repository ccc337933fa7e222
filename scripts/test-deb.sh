#!/usr/bin/env bash
# Installs the .deb of `make deb` on a clean Debian 12 and uses it there
# (DebPackageTests runs this in `make test`):
#   - a minbase bookworm made by debootstrap (with man-db), kept in
#     .build/deb-root/bookworm and copied afresh for every run, so each
#     install starts clean and only the first run downloads the system;
#   - `apt-get install ./prores-decode_*.deb` inside the copy: its Depends
#     must resolve from Debian alone (the packages it fetched are kept in
#     .build/deb-root/archives for the next run);
#   - `prores-decode --version`, `man prores-decode`, and a decode of a
#     fixture on both decoders (the GPU one on Mesa lavapipe, from the
#     Recommends), whose framemd5 must equal the host ffmpeg's;
#   - a `check` of the fixture served over http by nginx (deploy/Containerfile
#     installs this package on debian:12-slim the same way).
# Prints one `ok: ...` line per check; any failure exits non-zero.
# Environment: DEB (a built package; default: scripts/build-deb.sh makes
# one), DEBIAN_MIRROR. Needs root (debootstrap, chroot, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=$PWD/.build/deb-root
BASE=$CACHE/bookworm
WORK=$CACHE/work
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CLIP=Fixtures/hq.mov
fail() { echo "test-deb: $*" >&2; exit 1; }
seconds() { echo $(( $(date +%s) - $1 )); }

start=$(date +%s)
DEB=${DEB:-$(scripts/build-deb.sh | tail -n 1)}
[ -f "$DEB" ] || fail "no package at '$DEB'"
echo "ok: built $DEB ($(seconds "$start") s)"

if [ ! -e "$BASE/.complete" ]; then
    start=$(date +%s)
    rm -rf "$BASE"
    mkdir -p "$CACHE"
    debootstrap --variant=minbase --include=man-db bookworm "$BASE" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1 \
        || fail "debootstrap failed (see $CACHE/debootstrap.log)"
    touch "$BASE/.complete"
    echo "ok: debootstrap bookworm minbase ($(seconds "$start") s)"
fi

cleanup() {
    mountpoint -q "$WORK/proc" && umount "$WORK/proc"
    rm -rf "$WORK"
}
trap cleanup EXIT
cleanup
cp -a "$BASE" "$WORK"
mount -t proc proc "$WORK/proc"
cp /etc/resolv.conf "$WORK/etc/resolv.conf"
mkdir -p "$CACHE/archives"
cp "$CACHE"/archives/*.deb "$WORK/var/cache/apt/archives/" 2>/dev/null || true
cp "$DEB" "$WORK/tmp/"
cp "$CLIP" "$WORK/tmp/clip.mov"
inside() { chroot "$WORK" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

start=$(date +%s)
inside apt-get update -qq >/dev/null || fail "apt-get update failed"
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "/tmp/$(basename "$DEB")" >"$CACHE/apt-install.log" 2>&1 \
    || fail "apt-get install failed (see $CACHE/apt-install.log)"
cp "$WORK"/var/cache/apt/archives/*.deb "$CACHE/archives/" 2>/dev/null || true
echo "ok: apt-get install on a clean bookworm ($(seconds "$start") s)"
inside dpkg -s prores-decode | grep '^Depends:' | sed 's/^/ok: /'

version=$(inside prores-decode --version | head -n 1)
[ "$version" = "prores-decode $(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/ProResCore/Version.swift)" ] \
    || fail "--version printed '$version'"
echo "ok: $version"

page=$(inside env MANWIDTH=80 man prores-decode 2>&1) || fail "man prores-decode failed: $page"
grep -q '^PRORES-DECODE(1)' <<<"$page" && grep -q -- '--framemd5' <<<"$page" || fail "man prores-decode shows no page"
echo "ok: man prores-decode ($(wc -l <<<"$page") lines)"
copyright=$(inside cat /usr/share/doc/prores-decode/copyright) || fail "the package has no /usr/share/doc/prores-decode/copyright"
grep -q 'Apache License' <<<"$copyright" && grep -q 'Version 2.0, January 2004' <<<"$copyright" \
    && grep -q 'GNU Lesser General Public License' <<<"$copyright" || fail "the copyright file lacks the Apache-2.0 text or FFmpeg's LGPL notice"
echo "ok: copyright names Apache-2.0 and FFmpeg's LGPL"

expected=$(ffmpeg -v error -i "$CLIP" -f framemd5 - | grep -v '^#' | awk -F', *' '{print $NF}')
[ -n "$expected" ] || fail "the host's ffmpeg gave no framemd5"
for decoder in cpu gpu; do
    got=$(inside prores-decode /tmp/clip.mov --decoder "$decoder" --format native --framemd5 - --quiet | grep -v '^#' | awk -F', *' '{print $NF}') \
        || fail "decoding with --decoder $decoder failed"
    [ "$got" = "$expected" ] || fail "--decoder $decoder: framemd5 differs from ffmpeg's"
    echo "ok: --decoder $decoder framemd5 equals ffmpeg's ($(wc -l <<<"$got") frames)"
done

# The installed tool reads URLs (Debian's libavformat has http and https): a
# check of the clip served with ranges by nginx on a loopback port, which the
# chroot shares with the host.
SERVE=$(mktemp -d)
cp "$CLIP" "$SERVE/clip.mov"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$SERVE/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1; pid $SERVE/nginx.pid; error_log $SERVE/error.log warn;
events { worker_connections 16; }
http { access_log off; client_body_temp_path $SERVE/body; proxy_temp_path $SERVE/proxy; fastcgi_temp_path $SERVE/fastcgi;
       uwsgi_temp_path $SERVE/uwsgi; scgi_temp_path $SERVE/scgi; default_type application/octet-stream;
       server { listen 127.0.0.1:$port; root $SERVE; } }
CONF
/usr/sbin/nginx -p "$SERVE" -c "$SERVE/nginx.conf" -e "$SERVE/error.log" &
server=$!
trap 'kill $server 2>/dev/null; rm -rf "$SERVE"; cleanup' EXIT
for _ in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.1)" 2>/dev/null && break; sleep 0.1; done
verdict=$(inside prores-decode check "http://127.0.0.1:$port/clip.mov" --decoder cpu --policy none 2>&1) || fail "check over http failed: $verdict"
grep -q "^PASS http://127.0.0.1:$port/clip.mov" <<<"$verdict" || fail "check over http: $verdict"
echo "ok: check of an http URL passes"
