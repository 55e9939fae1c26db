#!/usr/bin/env bash
# fabricsim under mpirun against one process: the same tables, CSVs and results.json (timing
# lines aside), at 2 and 4 ranks with 1 and 2 threads each. The default set, which every CI stage
# runs (the sanitizers too): flows, SimAI's S1, a busbw table on one switch, a fat tree whose
# plan the ranks divide, a training iteration on the shared fabric, and what does not run over
# ranks saying so. The set `large` (release stage only, by its label): SimAI's S2-S4, PHOLD,
# isolated training, validate and topo.
# Usage: mpi_cli_test.sh FABRICSIM MPIEXEC [quick|large]
set -euo pipefail
exe=$1
mpiexec=$2
set_name=${3:-quick}
# More ranks than cores, as root in CI containers: Open MPI refuses both unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Ranks on one machine: shared memory only (tests/CMakeLists.txt says why).
export OMPI_MCA_btl=self,vader
mpirun=("$mpiexec" --oversubscribe)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# The lines that time the run (or say where its files went) differ by nature.
strip() {
  grep -v -E '^(wall time|events/s|thread time|threads / LPs|MPI |run: |wrote |# simulated with|# MPI: |simulated in|bare event list)' "$1" || true
}
strip_json() { grep -v -E '"(wall_s|events_per_s|(simulation\.)?threads|lps)"' "$1" || true; }

compare() {  # name, then the fabricsim arguments (an --out folder is added where asked)
  local name=$1 out=$2
  shift 2
  local args=("$@")
  local ref_out=()
  [ "$out" = out ] && ref_out=(--out "$work/$name.ref")
  "$exe" "${args[@]}" "${ref_out[@]}" > "$work/$name.ref.txt"
  for run in 2:1 2:2 4:1 4:2; do
    local np=${run%:*} threads=${run#*:}
    local tag="$name.np$np.t$threads" mine=()
    [ "$out" = out ] && mine=(--out "$work/$tag")
    local per_rank=(--threads "$threads")  # validate takes the scenarios' threads as a key
    [ "${args[0]}" = validate ] && per_rank=(--set "simulation.threads=$threads")
    [ "${args[0]}" = topo ] && per_rank=()  # no simulation: every rank does the same
    if ! "${mpirun[@]}" -np "$np" "$exe" "${args[@]}" "${per_rank[@]}" "${mine[@]}" \
        > "$work/$tag.txt" 2> "$work/$tag.err"; then
      echo "FAIL $tag: exit status $?"; cat "$work/$tag.err"; failures=$((failures + 1)); continue
    fi
    if ! diff <(strip "$work/$name.ref.txt") <(strip "$work/$tag.txt") > "$work/$tag.diff"; then
      echo "FAIL $tag: stdout differs from one process"; head -20 "$work/$tag.diff"
      failures=$((failures + 1))
    fi
    if [ "$out" = out ]; then
      for f in "$work/$name.ref"/*; do
        [ "$(basename "$f")" = results.json ] && continue
        cmp -s "$f" "$work/$tag/$(basename "$f")" ||
          { echo "FAIL $tag: $(basename "$f") differs"; failures=$((failures + 1)); }
      done
      diff -q <(strip_json "$work/$name.ref/results.json") <(strip_json "$work/$tag/results.json") \
        > /dev/null || { echo "FAIL $tag: results.json differs"; failures=$((failures + 1)); }
    fi
  done
  echo "ok $name"
}

if [ "$set_name" = large ]; then
  # SimAI's S2-S4, PHOLD (tests/core/ranks_test.cpp covers the kernel in every stage), and the
  # commands that run whole collectives one after another (isolated training, validate, topo).
  compare s2 none run scenarios/bench/simai_s2.yaml -q
  compare s3 none run scenarios/bench/simai_s3.yaml -q
  compare s4 none run scenarios/bench/simai_s4.yaml -q
  compare phold none bench phold --nodes 512 --end 30us --lps 6 --trace-hash
  compare isolated out run scenarios/examples/training_3d_single.yaml -q --set cluster.hosts=2 \
    --set training.tp=2 --set training.pp=2 --set training.dp=4 --set training.global_batch=8 \
    --set training.network=isolated
  # A 2-node dataset (bars opened: this compares runs, not accuracy) and a training case.
  compare validate none validate --dataset allreduce_nebius-h100_2node_16gpu_ib \
    --max-bytes 64MiB --max-median-error 100 --max-error 1000 --max-small-error 10000
  compare validate_training none validate --suite training --dataset korthikanti22-22b-full
  compare topo none topo scenarios/quickstart.yaml
  [ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
  exit 0
fi

# Flows on a fat tree with HPCC (telemetry crosses ranks as FIFO attachments).
compare incast out run scenarios/examples/incast_hpcc.yaml -q
# Collectives: SimAI's S1, and a table on one switch (ranks cut the NICs from it).
compare s1 none run scenarios/bench/simai_s1.yaml -q
compare busbw none busbw scenarios/quickstart.yaml -e 1MiB -q
# A fat tree with a host per leaf: each rank holds only its own hosts' plan steps (the others'
# messages come from the receiving end's steps, or as counts where neither end is local).
compare fat_tree none run tests/data/mpi/fat_tree_allreduce.yaml -q
for np in 2 4; do
  held=$("${mpirun[@]}" -np "$np" "$exe" run tests/data/mpi/fat_tree_allreduce.yaml -q |
    sed -n 's/.*a rank held at most \([0-9]*\)% of a size.s plan steps.*/\1/p')
  if [ -n "$held" ] && [ "$held" -lt 100 ]; then echo "ok fat_tree plan divided: $held% at $np ranks"
  else echo "FAIL fat_tree: a rank held '${held}'% of the plan at $np ranks"; failures=$((failures + 1))
  fi
done
# A training iteration on the shared fabric (ops.csv, ports.csv, trace.json).
compare training out run scenarios/examples/training_3d_single.yaml -q --set cluster.hosts=2 \
  --set training.tp=2 --set training.pp=2 --set training.dp=4 --set training.global_batch=8

refused() {  # what, expected words, command
  local what=$1 words=$2
  shift 2
  local status=0
  "${mpirun[@]}" -np 2 "$exe" "$@" > "$work/refused.txt" 2>&1 || status=$?
  if [ "$status" -eq 0 ] || ! grep -q "$words" "$work/refused.txt"; then
    echo "FAIL $what: exit status $status, expected a refusal naming '$words'"
    cat "$work/refused.txt"; failures=$((failures + 1))
  else
    echo "ok $what refused"
  fi
}

refused sweep "emit" sweep scenarios/examples/cc_sweep.yaml
refused "validate -j" "leave -j at 1" validate --dataset allreduce_dgx-h100_8gpu_nvswitch -j 2
refused "validate --fidelity all" "not over MPI ranks" validate --fidelity all \
  --dataset allreduce_dgx-h100_8gpu_nvswitch
refused "busbw --jobs" "leave --jobs at 1" busbw scenarios/quickstart.yaml --jobs 2

# Every rank meets a usage error; rank 0 alone says it.
"${mpirun[@]}" -np 2 "$exe" busbw scenarios/quickstart.yaml -f 0 > "$work/usage.txt" 2>&1 || true
said=$(grep -c "the step factor" "$work/usage.txt" || true)
if [ "$said" = 1 ]; then echo "ok usage error said once"; else
  echo "FAIL usage error said $said times, once expected"; cat "$work/usage.txt"
  failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
