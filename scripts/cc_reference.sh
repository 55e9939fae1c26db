#!/usr/bin/env bash
# DCQCN beside the reference RDMA model (not pass/fail): the 16-to-1 incast of
# scenarios/examples/incast_dcqcn.yaml (100 Gbps, 1 us links, PFC, 32 MiB buffer) under the
# settings the reference ns-3 model (alibaba-edu/High-Precision-Congestion-Control, its
# Mellanox DCQCN) was run with side by side, and the bottleneck's busy share in each. The
# reference column holds the figures measured on that model on identical inputs (quoted in the
# issue "Congestion control and PFC as deployed NICs and switches run them"); they are not
# produced here. docs/network.md keeps the table.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target fabricsim >/dev/null
fs=build/release/tools/fabricsim

# The reference's DCQCN rules: timer-only increase, CNP on every marked ACK, alpha 1 at the
# first CNP, no cut floor; g = EWMA_GAIN 1/256.
ns3="--set network.dcqcn.g=0.00390625 --set network.dcqcn.alpha_init=1
     --set network.dcqcn.byte_counter=0B --set network.dcqcn.cnp_interval=0us
     --set network.dcqcn.min_dec_factor=0 --set network.buffer=32MiB"
# run.py's dcqcn_paper timers (t_alpha 50, t_dec 50, t_inc 55 us; AI/HAI 5/50 Mb/s x bw/25,
# MIN_RATE 1000 Mb/s).
paper="--set network.dcqcn.alpha_period=50us --set network.dcqcn.rate_reduce_period=50us
       --set network.dcqcn.increase_period=55us --set network.dcqcn.rate_ai=20Mbps
       --set network.dcqcn.rate_hai=200Mbps --set network.dcqcn.min_rate=1000Mbps"
# config.txt's DCQCN block (ALPHA_RESUME_INTERVAL 1, RATE_DECREASE_INTERVAL 4, RP_TIMER 900,
# FAST_RECOVERY_TIMES 1, RATE_AI 50Mb/s, RATE_HAI 100Mb/s, MIN_RATE 100Mb/s).
repo="--set network.dcqcn.alpha_period=1us --set network.dcqcn.rate_reduce_period=4us
      --set network.dcqcn.increase_period=900us --set network.dcqcn.fast_recovery_steps=1
      --set network.dcqcn.rate_ai=50Mbps --set network.dcqcn.rate_hai=100Mbps
      --set network.dcqcn.min_rate=100Mbps"

busy() {  # busy share of the bottleneck, from the summary
  # shellcheck disable=SC2086
  "$fs" run scenarios/examples/incast_dcqcn.yaml $ns3 "$@" --threads 2 |
    sed -n 's/^busiest link .*: \([0-9.]*\)% busy$/\1/p'
}

printf "%-22s %-34s %9s %9s\n" incast settings reference fabricsim
for clamp in always after_timer_increase; do
  # shellcheck disable=SC2086
  printf "%-22s %-34s %9s %9s\n" "16 x 2 MB, MTU 4096" "paper, clamp $clamp" \
    "$([ $clamp = always ] && echo 76.6 || echo 95.5)" \
    "$(busy $paper --set network.dcqcn.clamp=$clamp --set network.mtu=4096B --set workload.flows.size=2MB)"
done
# shellcheck disable=SC2086
printf "%-22s %-34s %9s %9s\n" "16 x 1 MB, MTU 1000" "paper, clamp always" 99.9 \
  "$(busy $paper --set network.dcqcn.clamp=always --set network.mtu=1000B --set workload.flows.size=1MB)"
for clamp in always after_timer_increase; do
  # shellcheck disable=SC2086
  printf "%-22s %-34s %9s %9s\n" "16 x 16 MB, MTU 1000" "paper, clamp $clamp" \
    "$([ $clamp = always ] && echo 85.2 || echo 96.1)" \
    "$(busy $paper --set network.dcqcn.clamp=$clamp --set network.mtu=1000B --set workload.flows.size=16MB)"
done
for size in 1MB 16MB; do
  # shellcheck disable=SC2086
  printf "%-22s %-34s %9s %9s\n" "16 x $size, MTU 1000" "repository config.txt" \
    "$([ $size = 1MB ] && echo 44.3 || echo 76.6)" \
    "$(busy $repo --set network.dcqcn.clamp=after_timer_increase --set network.mtu=1000B --set workload.flows.size=$size)"
done
