#!/bin/bash
# Slurm: merge the shards of deploy/slurm-array.sh (submit with
# --dependency=afterok:ARRAY_JOB_ID from the same directory).
#SBATCH --job-name=prores-merge
#SBATCH --output=prores-merge.log
set -u
prores-decode merge shards/*.json --report merged.json --junit merged.xml --html merged.html --write-golden merged.golden -y
