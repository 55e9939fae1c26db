#!/usr/bin/env bash
# The libFuzzer harnesses of the readers of user input (tests/fuzz: the scenario loader, one
# --set override, the AICB and Chakra importers, the kernel-timing database), built by the `fuzz` preset
# (clang, ASan + UBSan) and run over the checked-in corpus (tests/fuzz/corpus/<harness>).
#   scripts/fuzz.sh                    CI: FABRICSIM_FUZZ_RUNS inputs per harness (default
#                                      20000) from seed 1, so a run is repeatable
#   FABRICSIM_FUZZ_SECONDS=3600 scripts/fuzz.sh [harness...]   a campaign of that long each
# Inputs that find new code go to build/fuzz/corpus/<harness> (copy the useful ones into the
# checked-in corpus); a crash, a sanitizer report, an escaping exception, an input slower than
# 30 s or one past 2 GiB stops the harness and leaves the input in build/fuzz/.
set -euo pipefail
cd "$(dirname "$0")/.."
harnesses=("$@")
[ ${#harnesses[@]} -eq 0 ] && harnesses=(scenario set aicb chakra kernel_db)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
if [ -n "${FABRICSIM_FUZZ_SECONDS:-}" ]; then
  budget=(-max_total_time="$FABRICSIM_FUZZ_SECONDS")
else
  budget=(-runs="${FABRICSIM_FUZZ_RUNS:-20000}" -seed=1)
fi
for h in "${harnesses[@]}"; do
  mkdir -p "build/fuzz/corpus/$h"
  echo "=== fuzz_$h"
  log="build/fuzz/$h.log"
  if ! "build/fuzz/tests/fuzz/fuzz_$h" "${budget[@]}" -max_len=16384 -timeout=30 \
    -rss_limit_mb=2048 -artifact_prefix="build/fuzz/$h-" -print_final_stats=1 \
    "build/fuzz/corpus/$h" "tests/fuzz/corpus/$h" >"$log" 2>&1; then
    tail -60 "$log" >&2
    echo "fuzz_$h: failed; the input is in build/fuzz/ (log: $log)" >&2
    exit 1
  fi
  grep -E "^(Done|stat::number_of_executed_units|stat::new_units_added|stat::peak_rss_mb)" "$log"
done
