#!/usr/bin/env bash
# Second command of the README (and what CI runs): set up, build, and run the whole test suite:
#   1. release build, every test;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build (assertions on), every test but the
#      `accuracy` and `long` labels (minutes of simulation, already run by the release stage);
#   3. ThreadSanitizer build: the tests labelled `kernel` (the parallel kernel) and every
#      multithreaded determinism test of the models built on it;
#   4. libFuzzer harnesses of the input readers (clang, ASan + UBSan), a fixed number of
#      inputs each from a fixed seed over the checked-in corpus (scripts/fuzz.sh).
# FABRICSIM_TEST_STAGES="release asan tsan fuzz" (default) picks stages; `-L label` style
# filters go through FABRICSIM_CTEST_ARGS.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh

stages=${FABRICSIM_TEST_STAGES:-release asan tsan fuzz}
jobs=$(nproc)
for stage in $stages; do
  echo "=== fabricsim tests: $stage"
  if [ "$stage" = fuzz ]; then
    scripts/fuzz.sh
    continue
  fi
  cmake --preset "$stage" >/dev/null
  cmake --build --preset "$stage" -j "$jobs"
  if [ "$stage" = tsan ]; then
    # shellcheck disable=SC2086
    ctest --preset tsan -j "$jobs" -L kernel ${FABRICSIM_CTEST_ARGS:-}
    # shellcheck disable=SC2086
    ctest --preset tsan -j "$jobs" -R "every thread count and partition" ${FABRICSIM_CTEST_ARGS:-}
  else
    # Accuracy runs minutes of simulation, `long` whole benchmark cases several times: once, in
    # the optimized build. The `scale` label
    # (cluster-scale validation cases, tens of minutes) is left to `ctest -L scale`.
    exclude=(-LE scale)
    [ "$stage" = release ] || exclude=(-LE "accuracy|long|scale")
    # shellcheck disable=SC2086
    ctest --preset "$stage" -j "$jobs" "${exclude[@]}" ${FABRICSIM_CTEST_ARGS:-}
  fi
done
