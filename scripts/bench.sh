#!/usr/bin/env bash
# The benchmark suite (not pass/fail): every case with 1 and 2 threads on the release build,
# one table of wall time, start-up (wall before the first event), events/s, peak memory and the
# simulated result. docs/performance.md keeps the latest table.
#   scripts/bench.sh          PHOLD, the 128-host fat tree, SimAI's cases S1-S4
#   scripts/bench.sh --big    also the 1 GiB all-reduce on 1,024 GPUs (~10 min and ~7.5 GB each)
#                             and one training iteration of GPT-3 13B on 128 GPUs and GPT-3 175B
#                             on 1,024 GPUs (minutes each)
set -euo pipefail
cd "$(dirname "$0")/.."
big=0
[ "${1:-}" = "--big" ] && big=1

cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target fabricsim >/dev/null
fs=build/release/tools/fabricsim
command -v /usr/bin/time >/dev/null || { echo "needs /usr/bin/time (Debian package time)" >&2; exit 1; }

echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
printf "%-22s %3s %9s %9s %12s %9s %9s  %s\n" case thr "wall s" "start s" events "Mev/s" "RSS MiB" result

# run NAME THREADS ARGS...: one line of the table.
run() {
  local name=$1 threads=$2
  shift 2
  local out
  out=$( { /usr/bin/time -f "__time %e %M" "$fs" "$@" --threads "$threads"; } 2>&1 ) || {
    echo "$name: failed" >&2
    echo "$out" >&2
    return 1
  }
  local wall rss kernel events result
  wall=$(awk '/^__time/ {print $2}' <<<"$out")
  rss=$(awk '/^__time/ {printf "%.0f", $3 / 1024}' <<<"$out")
  if grep -q "^iteration time" <<<"$out"; then
    # training: every network run's events; the whole run is the simulator's cost.
    events=$(awk '/^model:/ {gsub(/\(/, "", $(NF-1)); print $(NF-1)}' <<<"$out")
    kernel=$(awk '/^simulated in/ {print $3}' <<<"$out")
    result=$(awk '/^iteration time/ {print "iteration", $3, "s"}' <<<"$out")
  elif grep -q "^# simulated with" <<<"$out"; then
    # busbw: kernel time summed over sizes; result = time and busbw of every size.
    events=$(awk '/^# simulated with/ {print $4}' <<<"$out")
    kernel=$(awk '/^# simulated with/ {print $7}' <<<"$out")
    result=$(awk '/^ +[0-9]+ +[0-9]+ / {printf "%s B: %s us, %s GB/s; ", $1, $6, $8}' <<<"$out")
  else
    events=$(awk '/^events / {print $2}' <<<"$out")
    kernel=$(awk '/^wall time/ {print $3}' <<<"$out")
    result=$(awk '/^FCT \(us\)/ {print "FCT median", $6, "us, max", $10, "us"}' <<<"$out")
  fi
  local start rate
  start=$(awk -v w="$wall" -v k="$kernel" 'BEGIN {s = w - k; printf "%.2f", (s < 0 ? 0 : s)}')
  rate=$(awk -v e="$events" -v k="$kernel" 'BEGIN {printf "%.2f", (k > 0 ? e / k / 1e6 : 0)}')
  printf "%-22s %3s %9s %9s %12s %9s %9s  %s\n" "$name" "$threads" "$wall" "$start" "$events" \
    "$rate" "$rss" "$result"
}

for t in 1 2; do
  run phold-1024x16 "$t" bench phold --nodes 1024 --end 300us
  run fattree-128-perm "$t" bench fattree --hosts 128 --mib 64
  for s in 1 2 3 4; do run "simai-s$s" "$t" run "scenarios/bench/simai_s$s.yaml" -q; done
  if [ "$big" = 1 ]; then
    run allreduce-1GiB-1024gpu "$t" run scenarios/bench/allreduce_1024gpu.yaml -q
    run train-gpt3-13b-128gpu "$t" run scenarios/bench/train_gpt3_13b_128gpu.yaml -q
    run train-gpt3-175b-1024gpu "$t" run scenarios/bench/train_gpt3_175b_1024gpu.yaml -q
  fi
done
# The bare event-list speed on this machine: what a model's events/s per thread compares with.
"$fs" bench phold --nodes 1024 --end 10us | grep "bare event list"
