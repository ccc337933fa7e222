#!/usr/bin/env python3
"""How long a command takes to go after its last word: runs COMMAND with
stdout and stderr on one pipe, stamps each line as it arrives, and prints
the wall time to the last line, the time from the last line to the
process's exit (what the kernel spends taking the process down: for a GPU
process, the driver's teardown of its memory and device), and the last
line itself. Where a command prints its summary last (`check`'s TOTAL,
`--json`), the second figure is its exit cost.

    scripts/exit-time.py [--label L] COMMAND [ARGS...]
"""
import subprocess
import sys
import time


def main():
    args = sys.argv[1:]
    label = None
    if len(args) >= 2 and args[0] == "--label":
        label, args = args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    start = time.monotonic()
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    last_time, last_line = start, b""
    for line in process.stdout:
        last_time, last_line = time.monotonic(), line
    # EOF comes when the process closes the pipe, which it does while
    # exiting; the line before it is the last the process wrote.
    code = process.wait()
    end = time.monotonic()
    text = last_line.decode(errors="replace").strip()[:600]
    print(f"{label or args[0]}: exit {code}, to last line {1000 * (last_time - start):.1f} ms, "
          f"last line to exit {1000 * (end - last_time):.1f} ms, wall {1000 * (end - start):.1f} ms; last: {text}")


if __name__ == "__main__":
    main()
