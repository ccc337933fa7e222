#!/usr/bin/env python3
"""A small HTTP server for the tests of check over http(s): it serves the
files of one directory with byte ranges, and misbehaves on purpose by path
prefix. It listens on 127.0.0.1 only, on a free port it prints on stdout.

  /ok/NAME          the file, with ranges
  /flaky503/NAME    503 for the first two GET requests of NAME, then the file
  /down/NAME        503 for every GET request (its count is /count/down/NAME)
  /drop/NAME        the first response for NAME stops halfway and closes
                    the connection; later ones (ranges) are whole
  /redirect/NAME    302 to /ok/NAME
  /missing/NAME     404
  /forbidden/NAME   403
  /silent/NAME      reads the request and never answers
  /trickle/NAME     the whole reply, status line first, one byte a second
  /slowbody/NAME    the reply header at once, then the body one byte a second
  /gzip/NAME        the file, falsely labelled Content-Encoding: gzip
  /loop/NAME        302 to itself
  /chain/K/NAME     302 to /chain/K+1/NAME, without end
  /replaced/NAME    the file, with ETag and Last-Modified: a HEAD for NAME
                    before any GET gets the old object's, every other request
                    the new one's (an object replaced right after that HEAD)
  /slowhead/NAME    the file with an ETag; a HEAD's reply one byte a second
  /changing/NAME    the file, each reply with an ETag of its own (an object
                    replaced again and again while it is read)

Usage: flaky_http_server.py DIRECTORY
"""
import http.server
import os
import re
import sys
import threading
import time

ROOT = sys.argv[1]
counts = {}
lock = threading.Lock()


def seen(key):
    with lock:
        counts[key] = counts.get(key, 0) + 1
        return counts[key]


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.respond(body=False)

    def do_GET(self):
        self.respond(body=True)

    def respond(self, body):
        chain = re.fullmatch(r"/chain/(\d+)/(.+)", self.path)
        if chain:
            self.send_response(302)
            self.send_header("Location", "/chain/%d/%s" % (int(chain.group(1)) + 1, chain.group(2)))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        match = re.fullmatch(r"/(ok|flaky503|down|count|drop|redirect|missing|forbidden|silent|trickle|slowbody|gzip|loop|replaced|changing|slowhead)/(.+)",
                             self.path.split("?")[0])
        if not match:
            return self.send_error(404)
        kind, name = match.groups()
        if kind == "silent":
            # Holds the connection open, saying nothing, until the client leaves.
            while self.rfile.read(1):
                pass
            self.close_connection = True
            return
        if kind == "trickle":
            path = os.path.join(ROOT, name)
            with open(path, "rb") as f:
                data = f.read()
            head = ("HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(data)).encode()
            for byte in head + data:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(1)
            return
        if kind == "slowhead" and not body:
            head = b'HTTP/1.1 200 OK\r\nETag: "slow"\r\nContent-Length: 1\r\n\r\n'
            for byte in head:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(1)
            return
        if kind == "loop":
            self.send_response(302)
            self.send_header("Location", "/loop/" + name)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "missing":
            return self.send_error(404)
        if kind == "forbidden":
            return self.send_error(403)
        if kind == "redirect":
            self.send_response(302)
            self.send_header("Location", "/ok/" + name)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if kind == "flaky503" and body and seen("503 " + name) <= 2:
            return self.send_error(503)
        if kind == "down":
            if body:
                seen(self.path)
            return self.send_error(503)
        if kind == "count":
            with lock:
                text = str(counts.get("/" + name, 0)).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(text)))
            self.end_headers()
            return self.wfile.write(text)
        path = os.path.join(ROOT, name)
        if not os.path.isfile(path):
            return self.send_error(404)
        size = os.path.getsize(path)
        start, end = 0, size - 1
        ranged = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if ranged:
            start = int(ranged.group(1))
            end = min(int(ranged.group(2)), size - 1) if ranged.group(2) else size - 1
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        else:
            self.send_response(200)
        length = end - start + 1
        if kind == "gzip":
            self.send_header("Content-Encoding", "gzip")
        if kind == "slowhead":
            self.send_header("ETag", '"slow"')
        if kind == "changing":
            self.send_header("ETag", '"v%d"' % seen("changing " + name))
        if kind == "replaced":
            if body:
                seen("get " + name)
            with lock:
                old = not body and counts.get("get " + name, 0) == 0
            self.send_header("ETag", '"old"' if old else '"new"')
            self.send_header("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT" if old else "Tue, 02 Jan 2024 00:00:00 GMT")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(length))
        self.send_header("Content-Type", "application/octet-stream")
        self.end_headers()
        if not body:
            return
        with open(path, "rb") as f:
            f.seek(start)
            data = f.read(length)
        if kind == "slowbody":
            for i in range(len(data)):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(1)
            return
        if kind == "drop" and seen("drop " + name) == 1:
            self.wfile.write(data[: max(1, length // 2)])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data)


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True


server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
