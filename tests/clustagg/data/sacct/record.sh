#!/usr/bin/env bash
# Record the sacct fixtures of this directory on the emulated cluster (examples/slurm/cluster):
#   bash examples/slurm/cluster/start.sh STATE && source STATE/env
#   bash tests/clustagg/data/sacct/record.sh tests/clustagg/data/sacct [SCENARIO...]
#   bash examples/slurm/cluster/stop.sh STATE
# (python on PATH must import clustagg). Each scenario starts on an idle cluster and is read
# back with the exact command of clustagg.slurm.read_accounting,
#   sacct --duplicates -X -P -n -o JobIDRaw,JobName,State,Partition,Start,End,NNodes -S SINCE
# into SCENARIO.txt, whose first line "# since SINCE" is not sacct's (SINCE: the scenario's start).
set -euo pipefail
OUT=$(cd "${1:?usage: record.sh OUTPUT_DIR [SCENARIO...]}" && pwd)
shift
SCENARIOS=("${@:-resize resize-early resize-refused hetjob chain running}")
read -r -a SCENARIOS <<< "${SCENARIOS[*]}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
PY=$(command -v python)

now() { date +%Y-%m-%dT%H:%M:%S; }
idle() { while [ "$(sinfo -h -p cpu -t idle -o %D)" != 3 ]; do sleep 1; done; }
finished() {  # finished JOB...: wait until none of the jobs is pending, running or completing
    while squeue -h -j "$(IFS=,; echo "$*")" -t PD,CF,R,CG -o %i 2>/dev/null | grep -q .; do sleep 1; done
}
record() {  # record NAME SINCE, 3 s after the scenario's jobs ended (slurmdbd writes asynchronously)
    sleep 3
    { echo "# since $2"; sacct --duplicates -X -P -n -o JobIDRaw,JobName,State,Partition,Start,End,NNodes \
        -S "$2"; } > "$OUT/$1.txt"
}

# A 1-node job resized by clustagg.slurm.SlurmAllocation: FIRST seconds, then twice grow(3),
# 4 s, shrink(), 3 s; every Slurm command it runs, its answer and its duration go to NAME-commands.json
# (the offline replay of tests/clustagg/test_slurm.py).
resized_job() {  # resized_job NAME FIRST GROW_TIMEOUT
    cat > "$1.sh" <<SCRIPT
#!/bin/bash
#SBATCH --job-name=$1 --partition=cpu --nodes=1
exec $PY - <<'PYTHON'
import json, os, time
from clustagg import slurm
calls, run = [], slurm.slurm
def recorded(arguments, **options):
    entry = {"arguments": list(arguments), "with_stderr": options.get("with_stderr", False)}
    calls.append(entry)
    tic = time.monotonic()
    try:
        entry["output"] = run(arguments, **options)
    except slurm.SlurmError as exc:
        entry["error"] = str(exc)
        raise
    finally:
        entry["seconds"] = round(time.monotonic() - tic, 3)
    return entry["output"]
slurm.slurm = recorded
allocation = slurm.SlurmAllocation(os.environ["SLURM_JOB_ID"], "cpu", grow_timeout=$3, log=print)
for first in (True, False):
    time.sleep($2 if first else 3)
    allocation.grow(3)
    time.sleep(4)
    allocation.shrink()
time.sleep(3)
with open("$1-commands.json", "w") as file:
    json.dump(calls, file, indent=1)
PYTHON
SCRIPT
    sbatch --parsable --output="$1.out" "$1.sh"
}

for scenario in "${SCENARIOS[@]}"; do
    idle; since=$(now); sleep 1
    case $scenario in
    resize)  # grows 3 s after its start
        job=$(resized_job resize 3 30)
        finished "$job" ;;
    resize-early)  # grows as soon as it starts, as the malleable mode does
        job=$(resized_job resize-early 0 30)
        finished "$job" ;;
    resize-refused)  # two of the three cpu nodes held by another job for 20 s; grows give up after 3 s
        hold=$(sbatch --parsable --job-name=hold-nodes --nodes=2 --output=/dev/null --wrap="sleep 20")
        while [ "$(squeue -h -j "$hold" -t R -o %i)" = "" ]; do sleep 0.5; done
        job=$(resized_job resize-refused 0 3)
        finished "$job" "$hold" ;;
    hetjob)  # one cpu node and the quantum node, 4 s and 2 s steps
        cat > het.sh <<'SCRIPT'
#!/bin/bash
#SBATCH --job-name=het --partition=cpu --nodes=1 --ntasks=1
#SBATCH hetjob
#SBATCH --partition=qpu --nodes=1 --ntasks=1
srun --het-group=0 sleep 4 : --het-group=1 sleep 2
SCRIPT
        job=$(sbatch --parsable --output=het.out het.sh)
        finished "$job" $((job + 1)) ;;
    chain)  # 2 nodes, then 1, then 3 (afterok), and a job after a failing one, cancelled while pending
        a=$(sbatch --parsable --job-name=chain-a --nodes=2 --output=/dev/null --wrap="sleep 3")
        b=$(sbatch --parsable --job-name=chain-b --nodes=1 --dependency=afterok:"$a" --output=/dev/null \
            --wrap="sleep 2")
        c=$(sbatch --parsable --job-name=chain-c --nodes=3 --dependency=afterok:"$b" --output=/dev/null \
            --wrap="sleep 2")
        f=$(sbatch --parsable --job-name=fails --nodes=1 --output=/dev/null --wrap="sleep 1; exit 3")
        n=$(sbatch --parsable --job-name=never --nodes=1 --dependency=afterok:"$f" --output=/dev/null \
            --wrap="true")
        finished "$a" "$b" "$c" "$f"
        scancel "$n" ;;
    running)  # one job finished, one (2 nodes) still running when sacct is read
        done_job=$(sbatch --parsable --job-name=done --nodes=1 --output=/dev/null --wrap="sleep 2")
        running=$(sbatch --parsable --job-name=running --nodes=2 --output=/dev/null --wrap="sleep 60")
        finished "$done_job" ;;
    *) echo "record.sh: unknown scenario $scenario" >&2; exit 2 ;;
    esac
    record "$scenario" "$since"
    if [ -f "$scenario-commands.json" ]; then cp "$scenario-commands.json" "$OUT/"; cat "$scenario.out" >&2; fi
    if [ "$scenario" = running ]; then scancel "$running"; finished "$running"; fi
done
