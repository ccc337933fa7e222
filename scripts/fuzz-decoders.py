#!/usr/bin/env python3
"""Differential fuzzing of the three decoders on mutants of the fixtures.

  fuzz-decoders.py [--mutants N] [--first-seed S] [--jobs J] [--binary PATH] [--keep DIR] [--no-gpu]

Each mutant is one random edit of a tiny fixture (scripts/prores_mutate.py
random: a slice's qscale, the quantisation matrices, bit flips, a slice's
declared sizes), decoded by `prores-decode --decoder cpu`, `gpu` and
`ffmpeg` with `--framemd5` and `--json`. A mutant is a finding where

  * our CPU and GPU decoders differ: exit code, frames written, any frame's
    md5, or the frames they flag as "decoders may differ";
  * ours and FFmpeg's differ in exit code or frames written;
  * ours and FFmpeg's differ in a frame's md5 that ours did not flag.

Prints one line per finding (the fixture and seed remake the mutant) and
the counts; exits 1 where there is a finding. Mutants of findings are kept
under --keep (default: none kept). --no-gpu leaves the GPU decoder out (a
quicker hunt; the CPU decoder stands for it).
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import prores_mutate  # noqa: E402

# Tiny clips (192x112, a few frames): 10-bit 4:2:2 of every profile, one
# slice a row, interlaced, and 12-bit 4:4:4 with alpha.
FIXTURES = ["hq.mov", "422.mov", "lt.mov", "proxy.mov", "slices1.mov", "aw-hq.mov", "interlaced-tff.mov",
            "4444.mov", "odd-size.mov"]
DECODERS = ["cpu", "gpu", "ffmpeg"]


def decode(binary, path, decoder, directory):
    md5 = os.path.join(directory, decoder + ".framemd5")
    run = subprocess.run([binary, path, "--decoder", decoder, "--framemd5", md5, "--json", "--overwrite"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=300)
    hashes = []
    if os.path.exists(md5):
        with open(md5) as f:
            hashes = [line.rsplit(",", 1)[1].strip() for line in f if line.strip() and not line.startswith("#")]
    try:
        flagged = json.loads(run.stdout).get("decoders_may_differ", [])
    except ValueError:
        flagged = []
    return {"status": run.returncode, "hashes": hashes, "flagged": flagged,
            "stderr": run.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]}


def compare(outcome):
    cpu, gpu, ffmpeg = outcome["cpu"], outcome.get("gpu", outcome["cpu"]), outcome["ffmpeg"]
    problems = []
    for field in ["status", "hashes", "flagged"]:
        if cpu[field] != gpu[field]:
            problems.append("cpu and gpu differ in %s" % field)
    if cpu["status"] != ffmpeg["status"]:
        problems.append("exit code: ours %d, ffmpeg %d" % (cpu["status"], ffmpeg["status"]))
    if len(cpu["hashes"]) != len(ffmpeg["hashes"]):
        problems.append("frames written: ours %d, ffmpeg %d" % (len(cpu["hashes"]), len(ffmpeg["hashes"])))
    else:
        unflagged = [i for i, (a, b) in enumerate(zip(cpu["hashes"], ffmpeg["hashes"]))
                     if a != b and i not in cpu["flagged"]]
        if unflagged:
            problems.append("frames %s differ from ffmpeg's without the flag" % unflagged)
    return problems


def one(binary, seed, keep, decoders):
    fixture = FIXTURES[seed % len(FIXTURES)]
    directory = tempfile.mkdtemp(prefix="fuzz-decoders-")
    try:
        original, parsed = prores_mutate.frames(os.path.join(ROOT, "Fixtures", fixture))
        data = bytearray(original)
        what = prores_mutate.random_mutation(data, parsed, seed)
        path = os.path.join(directory, "mutant.mov")
        prores_mutate.write(path, data)
        outcome = {d: decode(binary, path, d, directory) for d in decoders}
        problems = compare(outcome)
        if problems and keep:
            shutil.copy(path, os.path.join(keep, "%s-%d.mov" % (fixture.replace(".mov", ""), seed)))
        return seed, fixture, what, outcome, problems
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mutants", type=int, default=1000)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "debug", "prores-decode"))
    parser.add_argument("--keep")
    parser.add_argument("--no-gpu", action="store_true")
    args = parser.parse_args()
    decoders = [d for d in DECODERS if not (args.no_gpu and d == "gpu")]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
    seeds = range(args.first_seed, args.first_seed + args.mutants)
    counts = {"mutants": 0, "findings": 0, "flagged": 0, "flagged and different": 0, "damaged or failed": 0}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for seed, fixture, what, outcome, problems in pool.map(lambda s: one(args.binary, s, args.keep, decoders), seeds):
            counts["mutants"] += 1
            cpu, ffmpeg = outcome["cpu"], outcome["ffmpeg"]
            if cpu["flagged"]:
                counts["flagged"] += 1
                if any(a != b for a, b in zip(cpu["hashes"], ffmpeg["hashes"])):
                    counts["flagged and different"] += 1
            if cpu["status"] != 0:
                counts["damaged or failed"] += 1
            if problems:
                counts["findings"] += 1
                print("FINDING %s seed %d (%s): %s; exit cpu %d gpu %d ffmpeg %d; %s"
                      % (fixture, seed, what, "; ".join(problems), cpu["status"], outcome.get("gpu", cpu)["status"],
                         ffmpeg["status"], " / ".join(cpu["stderr"] + ffmpeg["stderr"])), flush=True)
    print(", ".join("%s %d" % (k, v) for k, v in counts.items()))
    sys.exit(1 if counts["findings"] else 0)


if __name__ == "__main__":
    main()
