#!/usr/bin/env python3
"""Sums up a PRORES_DECODE_TRACE file (Chrome trace events): per thread
kind, each span's count, total and share of the traced time; then the first
and last time each span ran, so what waited on what shows.

    scripts/trace-summary.py TRACE.json [--timeline] [--over-time NAME]...
                             [--concurrency NAME]...

--over-time NAME splits span NAME's occurrences, in the order they began,
into five equal groups and prints each group's mean duration: whether the
first reads (fresh memory, imports) cost more than the last.

--concurrency NAME says how many NAME spans ran at once, on all threads,
within the "decode run" span (else from NAME's first start to its last
end): the mean, and the share of that time spent at each count. Whether a
pool of readers keeps its reads in flight shows here.

Threads are grouped by name with trailing digits dropped (the reader's
pool threads are one line). A span inside another on the same thread is
counted in both (they are nested, not added)."""
import json
import re
import sys
from collections import defaultdict


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    events = json.load(open(sys.argv[1]))["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        sys.exit("no spans in the trace")
    start = min(e["ts"] for e in spans)
    end = max(e["ts"] + e["dur"] for e in spans)
    total = end - start
    print(f"traced: {start / 1000:.1f} ms to {end / 1000:.1f} ms after process start ({total / 1000:.1f} ms)")
    groups = defaultdict(lambda: defaultdict(list))
    threads = defaultdict(set)
    for e in spans:
        kind = re.sub(r"[-.]?\d+$", "", names.get(e["tid"], "thread"))
        groups[kind][e["name"]].append(e)
        threads[kind].add(e["tid"])
    for kind in sorted(groups):
        print(f"\n{kind} ({len(threads[kind])} thread{'s' if len(threads[kind]) > 1 else ''})")
        rows = sorted(groups[kind].items(), key=lambda item: -sum(e["dur"] for e in item[1]))
        for name, es in rows:
            busy = sum(e["dur"] for e in es)
            first = min(e["ts"] for e in es) / 1000
            last = max(e["ts"] + e["dur"] for e in es) / 1000
            print(f"  {name:32} {len(es):6}x {busy / 1000:9.1f} ms {100 * busy / total:6.1f}%"
                  f"  mean {busy / len(es):8.1f} µs  from {first:8.1f} to {last:8.1f} ms")
    for name in option_values("--over-time"):
        es = sorted((e for e in spans if e["name"] == name), key=lambda e: e["ts"])
        if not es:
            print(f"\n{name}: no spans")
            continue
        print(f"\n{name} over time ({len(es)} spans, five groups in start order):")
        for g in range(5):
            part = es[g * len(es) // 5:(g + 1) * len(es) // 5]
            if part:
                mean = sum(e["dur"] for e in part) / len(part)
                print(f"  {part[0]['ts'] / 1000:8.1f}-{(part[-1]['ts'] + part[-1]['dur']) / 1000:8.1f} ms: {len(part):5}x mean {mean:8.1f} µs")
    for name in option_values("--concurrency"):
        concurrency(spans, name)
    if "--timeline" in sys.argv:
        print("\ntimeline (ms from process start):")
        for e in sorted(spans, key=lambda e: e["ts"]):
            print(f"  {e['ts'] / 1000:9.2f} +{e['dur'] / 1000:8.2f}  {names.get(e['tid'], e['tid'])}: {e['name']}")


def option_values(option):
    """The value after each occurrence of `option` on the command line."""
    args = sys.argv[2:]
    return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == option]


def concurrency(spans, name):
    es = [e for e in spans if e["name"] == name]
    if not es:
        print(f"\n{name}: no spans")
        return
    runs = [e for e in spans if e["name"] == "decode run"]
    if runs:
        lo, hi = min(e["ts"] for e in runs), max(e["ts"] + e["dur"] for e in runs)
    else:
        lo, hi = min(e["ts"] for e in es), max(e["ts"] + e["dur"] for e in es)
    edges = []
    for e in es:
        a, b = max(e["ts"], lo), min(e["ts"] + e["dur"], hi)
        if b > a:
            edges += [(a, 1), (b, -1)]
    edges.sort()
    at = defaultdict(float)
    level, last = 0, lo
    for t, step in edges:
        at[level] += t - last
        level, last = level + step, t
    at[level] += hi - last
    window = hi - lo
    mean = sum(k * v for k, v in at.items()) / window
    print(f"\n{name} at once, {lo / 1000:.1f}-{hi / 1000:.1f} ms: mean {mean:.2f}")
    for k in sorted(at):
        if at[k] > 0:
            print(f"  {k:3}: {100 * at[k] / window:5.1f}% of the time")


if __name__ == "__main__":
    main()
