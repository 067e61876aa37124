#!/usr/bin/env bash
# Submits flow (/SCRATCH/flow.yaml) to Slurm: its lists job, then 3 shards, then its gather job. Made by `flowrun export slurm`.
# The workflow, its inputs and /SCRATCH/.flowrun must be on a filesystem every node sees at the same path.
# Rerun some shards: SHARDS=2,4 bash THIS_FILE. Another flowrun binary: FLOWRUN=/path/to/flowrun.
set -euo pipefail
if [[ -z "${FLOWRUN:-}" ]]; then FLOWRUN=/FLOWRUN; fi
export FLOWRUN
mkdir -p /SCRATCH/.flowrun/slurm/

# The lists step: the tasks that make lists at run time run once; every shard replays their lists from the
# store and takes the items whose keys name it.
lists=$(sbatch --parsable --job-name=flowrun-flow --chdir=/SCRATCH --cpus-per-task=1 --output=/SCRATCH/.flowrun/slurm/'%x-%j.out' <<'LISTS'
#!/usr/bin/env bash
exec "$FLOWRUN" /SCRATCH/flow.yaml --lists --state-dir /SCRATCH/.flowrun --no-progress --max-concurrent 1
LISTS
)
lists=${lists%%;*}

# One array task per shard; `sbatch --parsable` prints "jobid" or "jobid;cluster".
shards=$(sbatch --parsable --job-name=flowrun-flow --chdir=/SCRATCH --cpus-per-task=1 --dependency="afterok:$lists" --kill-on-invalid-dep=yes --array="${SHARDS:-1-3}" \
    --output=/SCRATCH/.flowrun/slurm/'%x-%A_%a.out' <<'SHARD'
#!/usr/bin/env bash
exec "$FLOWRUN" /SCRATCH/flow.yaml --shard "$SLURM_ARRAY_TASK_ID/3" --state-dir /SCRATCH/.flowrun --no-progress --max-concurrent 1
SHARD
)
shards=${shards%%;*}

# The gather phase once every shard succeeded; cancelled, not left pending, if one fails.
gather=$(sbatch --parsable --job-name=flowrun-flow --chdir=/SCRATCH --cpus-per-task=1 --dependency="afterok:$shards" --kill-on-invalid-dep=yes \
    --output=/SCRATCH/.flowrun/slurm/'%x-%j.out' <<'GATHER'
#!/usr/bin/env bash
exec "$FLOWRUN" /SCRATCH/flow.yaml --gather --state-dir /SCRATCH/.flowrun --no-progress --max-concurrent 1 --report /SCRATCH/.flowrun/flow.yaml.report.json
GATHER
)
gather=${gather%%;*}

echo "lists: job $lists"
echo "shards: job $shards (array ${SHARDS:-1-3})"
echo "gather: job $gather (after every shard succeeded)"
