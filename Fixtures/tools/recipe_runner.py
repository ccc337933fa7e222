#!/usr/bin/env python3
"""Runs a deploy/ recipe on this machine as its engine would: reads the
file (YAML or JSON), takes out the commands its shard jobs and its merge
job run, starts N shard processes at once with the variables that engine
sets for each, waits for them, then runs the merge, all in WORKDIR.

  recipe_runner.py ENGINE N WORKDIR
  ENGINE: github | gitlab | kubernetes | slurm | aws-batch | container

prores-decode must be on PATH. Prints the merge's exit status last; exits
1 if the recipe is not what this runner expects, or a shard fails.
`container` checks deploy/Containerfile instead: it copies the folder
`make deb` writes and installs the package there, and its health check
command runs.
"""
import json
import os
import re
import shlex
import subprocess
import sys

import yaml

DEPLOY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy")


def fail(message):
    print("recipe_runner: " + message, file=sys.stderr)
    sys.exit(1)


def load(name):
    with open(os.path.join(DEPLOY, name)) as f:
        return f.read()


def github(n):
    workflow = yaml.safe_load(load("github-actions.yml"))
    jobs = workflow["jobs"]
    check, merge = jobs["check"], jobs["merge"]
    if merge.get("needs") != "check":
        fail("the merge job does not wait for the check job")
    if len(check["strategy"]["matrix"]["shard"]) != 8:
        fail("the matrix is not 8 shards")

    def expand(text, index):
        def value(match):
            expression = match.group(1).strip()
            known = {"strategy.job-index": str(index), "strategy.job-total": str(n), "matrix.shard": str(index)}
            if expression not in known:
                fail("unknown expression ${{ %s }}" % expression)
            return known[expression]
        return re.sub(r"\$\{\{(.*?)\}\}", value, text)

    def runs(job, index):
        env = {k: expand(str(v), index) for k, v in job.get("env", {}).items()}
        scripts = [expand(step["run"], index) for step in job["steps"] if "run" in step]
        return [(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s], env) for s in scripts]

    return [runs(check, i) for i in range(n)], runs(merge, 0)


def gitlab(n):
    pipeline = yaml.safe_load(load("gitlab-ci.yml"))
    check, merge = pipeline["prores-check"], pipeline["prores-merge"]
    if check.get("parallel") != 8:
        fail("parallel: is not 8")
    if pipeline["stages"].index(check["stage"]) >= pipeline["stages"].index(merge["stage"]):
        fail("the merge stage does not come after the check stage")

    def runs(job, env):
        return [(["bash", "-eo", "pipefail", "-c", line], env) for line in job["script"]]

    return [runs(check, {"CI_NODE_INDEX": str(i + 1), "CI_NODE_TOTAL": str(n)}) for i in range(n)], runs(merge, {})


def kubernetes(n):
    documents = [d for d in yaml.safe_load_all(load("kubernetes.yaml")) if d]
    indexed = [d for d in documents if d["spec"].get("completionMode") == "Indexed"]
    others = [d for d in documents if d["spec"].get("completionMode") != "Indexed"]
    if len(indexed) != 1 or len(others) != 1:
        fail("expected one Indexed Job and one merge Job")
    spec = indexed[0]["spec"]
    container = spec["template"]["spec"]["containers"][0]
    declared = {e["name"]: e["value"] for e in container.get("env", [])}
    if not (spec["completions"] == spec["parallelism"] == int(declared["SHARDS"]) == 8):
        fail("completions, parallelism and SHARDS disagree")

    def runs(c, env):
        variables = {e["name"]: e["value"] for e in c.get("env", [])}
        variables.update(env)
        # Kubernetes expands $(VAR) in command and args from the container's env.
        words = [re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: variables.get(m.group(1), m.group(0)), w)
                 for w in c["command"] + c.get("args", [])]
        if c.get("workingDir") != "/data":
            fail("the container does not work in /data")
        return [(words, variables)]

    shards = [runs(container, {"SHARDS": str(n), "JOB_COMPLETION_INDEX": str(i)}) for i in range(n)]
    return shards, runs(others[0]["spec"]["template"]["spec"]["containers"][0], {})


def slurm(n):
    script = load("slurm-array.sh")
    if "#SBATCH --array=0-7" not in script:
        fail("the array is not 0-7")
    shards = [[(["bash", os.path.join(DEPLOY, "slurm-array.sh")],
                {"SLURM_ARRAY_JOB_ID": "1000", "SLURM_ARRAY_TASK_ID": str(i), "SLURM_ARRAY_TASK_MIN": "0",
                 "SLURM_ARRAY_TASK_MAX": str(n - 1), "SLURM_ARRAY_TASK_COUNT": str(n), "SLURM_ARRAY_TASK_STEP": "1",
                 "SLURM_CPUS_PER_TASK": "1"})] for i in range(n)]
    return shards, [(["bash", os.path.join(DEPLOY, "slurm-merge.sh")], {})]


def aws_batch(n):
    check, merge = json.loads(load("aws-batch-check.json")), json.loads(load("aws-batch-merge.json"))
    if check["parameters"]["shards"] != "8":
        fail("the default shard count is not 8")

    def command(definition, parameters):
        # AWS Batch replaces a command word "Ref::NAME" by the job's parameter NAME.
        return [parameters.get(w[5:], w) if w.startswith("Ref::") else w for w in definition["containerProperties"]["command"]]

    shards = [[(command(check, {"shards": str(n)}), {"AWS_BATCH_JOB_ARRAY_INDEX": str(i)})] for i in range(n)]
    return shards, [(command(merge, {}), {})]


def container():
    lines = [l for l in load("Containerfile").splitlines() if l.strip() and not l.startswith("#")]
    text = "\n".join(lines).replace("\\\n", " ")
    instructions = [l.split(None, 1) for l in text.splitlines() if l and not l.startswith(" ")]
    words = {k.upper(): v for k, v in instructions}
    if not re.fullmatch(r"debian:\d+-slim", words["FROM"]):
        fail("the base is not a slim Debian: " + words["FROM"])
    # What it copies is the folder `make deb` writes, and what it installs is the package there.
    deb = load(os.path.join("..", "scripts", "build-deb.sh"))
    folder = re.search(r"OUT=\$\{OUT:-([^}]+)\}", deb).group(1)
    if not re.search(r"DEB=\$OUT/prores-decode_\$\{VERSION\}_\$\{ARCH\}\.deb", deb):
        fail("scripts/build-deb.sh no longer names its package prores-decode_VERSION_ARCH.deb")
    copies = [v.split() for k, v in instructions if k.upper() == "COPY"]
    if copies != [[folder + "/", "/tmp/deb/"]]:
        fail("COPY: expected %s/ (what make deb writes) to /tmp/deb/, got %s" % (folder, copies))
    run = " ".join(v for k, v in instructions if k.upper() == "RUN")
    if "apt-get install" not in run or "/tmp/deb/prores-decode_*.deb" not in run:
        fail("RUN does not install the package make deb wrote")
    health = re.fullmatch(r'.*CMD (\[.*\])', words["HEALTHCHECK"])
    if not health:
        fail("no HEALTHCHECK CMD in exec form")
    command = json.loads(health.group(1))
    if command != ["prores-decode", "--version"]:
        fail("the health check is not prores-decode --version")
    status = subprocess.run(command, stdout=subprocess.DEVNULL).returncode
    print(status)
    sys.exit(0 if status == 0 else 1)


def main():
    engine, n, workdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if engine == "container":
        return container()
    shards, merge = {"github": github, "gitlab": gitlab, "kubernetes": kubernetes, "slurm": slurm,
                     "aws-batch": aws_batch}[engine](n)
    # Every shard's commands in order, the shards side by side.
    scripts = ["\n".join("env %s %s || exit $?" % (" ".join(shlex.quote("%s=%s" % kv) for kv in env.items()),
                                                   " ".join(shlex.quote(w) for w in words))
                         for words, env in steps) for steps in shards]
    # Only the variables each engine sets: none of them inherited from wherever
    # the runner itself runs (a GitLab job has CI_NODE_INDEX of its own).
    engine_variables = ("CI_NODE_", "JOB_COMPLETION_INDEX", "SLURM_", "AWS_BATCH_", "PRORES_DECODE_SHARD")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(engine_variables)}
    processes = [subprocess.Popen(["bash", "-c", s], cwd=workdir, env=clean) for s in scripts]
    codes = [p.wait() for p in processes]
    if any(codes):
        fail("shard exit statuses %s" % codes)
    status = 0
    for words, env in merge:
        status = subprocess.run(words, cwd=workdir, env={**clean, **env}).returncode
        if status not in (0, 10, 11, 15):
            break
    print(status)


main()
