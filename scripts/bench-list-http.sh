#!/usr/bin/env bash
# check --list over HTTP from a local nginx against the same files from
# disk (CPU decoder), as whole processes in interleaved rounds
# (`prores-decode bench --whole-process`: A from disk, B over HTTP).
#
#   scripts/bench-list-http.sh [BINARY] [FILES] [ROUNDS] [CLIP]
#
# BINARY: prores-decode (default .build/release/prores-decode); FILES copies
# of CLIP (default 1000 of Fixtures/hq.mov) in a temporary directory, served
# by nginx (Debian's nginx-light) on a free 127.0.0.1 port with its own
# prefix; ROUNDS (default 5) rounds. Prints each round's wall times, the
# medians and their ratio (B/A: http / disk). Extra check options: CHECK_OPTS.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/prores-decode}
FILES=${2:-1000}
ROUNDS=${3:-5}
CLIP=${4:-Fixtures/hq.mov}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
WORK=$(mktemp -d)
NGINX_PID=
cleanup() { [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/clips" "$WORK/nginx"
for i in $(seq -w 1 "$FILES"); do cp "$CLIP" "$WORK/clips/clip-$i.mov"; done
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/nginx/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $WORK/nginx/nginx.pid; error_log $WORK/nginx/error.log warn;
events { worker_connections 1024; }
http {
    access_log off; sendfile on; keepalive_requests 100000;
    client_body_temp_path $WORK/nginx/body; proxy_temp_path $WORK/nginx/proxy; fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi; scgi_temp_path $WORK/nginx/scgi;
    server { listen 127.0.0.1:$PORT; root $WORK/clips; }
}
CONF
/usr/sbin/nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" & NGINX_PID=$!
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" 2>/dev/null && break; python3 -c 'import time; time.sleep(0.1)'; done
ls "$WORK/clips" | sed "s|^|$WORK/clips/|" >"$WORK/disk.txt"
ls "$WORK/clips" | sed "s|^|http://127.0.0.1:$PORT/|" >"$WORK/http.txt"
# B: over HTTP; A: from disk. Each side must pass every file, every round
# (bench --whole-process stops at a command that fails).
"$BIN" bench --whole-process --rounds "$ROUNDS" \
  --compare "$BIN check --list $WORK/http.txt --decoder cpu --policy none ${CHECK_OPTS:-} --report $WORK/http.json" \
  -- check --list "$WORK/disk.txt" --decoder cpu --policy none ${CHECK_OPTS:-} --report "$WORK/disk.json"
for side in disk http; do
  python3 -c "import json, sys; r = json.load(open(sys.argv[1]))['summary']; assert r['passed'] == $FILES, r" "$WORK/$side.json"
done
