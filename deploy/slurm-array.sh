#!/bin/bash
# Slurm: check an archive as a job array of 8 tasks, then merge.
#   jobid=$(sbatch --parsable deploy/slurm-array.sh)
#   sbatch --dependency=afterok:$jobid deploy/slurm-merge.sh
# Run from the directory holding files.txt (one path or http(s) URL a line).
# Slurm sets SLURM_ARRAY_TASK_ID, _MIN and _COUNT, which `--shard auto` reads.
#SBATCH --job-name=prores-check
#SBATCH --array=0-7
#SBATCH --cpus-per-task=4
#SBATCH --output=prores-check-%a.log
set -u
mkdir -p shards
rc=0
prores-decode check --list files.txt --shard auto --jobs "${SLURM_CPUS_PER_TASK:-1}" \
  --report "shards/$SLURM_ARRAY_TASK_ID.json" --junit "shards/$SLURM_ARRAY_TASK_ID.xml" \
  --write-golden "shards/$SLURM_ARRAY_TASK_ID.golden" -y || rc=$?
# 10, 11 and 15 are verdicts (a file failed, could not be read, or warned): the merge judges.
case $rc in 0|10|11|15) ;; *) exit $rc ;; esac
