#pragma once
// Congestion-control parameters: one struct per algorithm, every default with its source.
// Sources are pinned in shared/reference/cc-defaults.md (beside the repository); "fluid model"
// below means the DCQCN/TIMELY authors' analysis code for "ECN or Delay" (Zhu, Ghobadi, Misra,
// Padhye, CoNEXT'16), repository jitupadhye-zz/rdma, files fluidmodel/dcqcn/dcqcn2.m,
// fluidmodel/timely/timely2.m and conext2016/dcqcn-model.tex, read for this module.
// "HPCC-ns3" = alibaba-edu/High-Precision-Congestion-Control,
// simulation/src/point-to-point/model/rdma-hw.cc (RdmaHw attribute defaults).
#include <cstdint>
#include <string_view>

#include "core/time.hpp"

namespace fabricsim::net::cc {

using core::Time;
using Bps = std::uint64_t;  // bits per second (same as net::Bps in net/topology/topology.hpp)

enum class Kind : std::uint8_t { kNone, kDcqcn, kHpcc, kDctcp, kTimely };

// "none", "dcqcn", "hpcc", "dctcp", "timely"; anything else throws std::invalid_argument
// naming the accepted values (called while reading a scenario, never per packet).
Kind parse_kind(std::string_view text);
const char* name(Kind kind);

// DCQCN comes in two named variants, one struct: `connectx`, the NVIDIA ConnectX firmware's
// DCQCN with its shipped defaults (what RoCE deployments run, so the default), and `paper`, the
// algorithm as published with the parameters of its authors' fluid model. They differ in
// mechanism, not only in numbers (see the rule keys below and docs/network.md).
enum class DcqcnVariant : std::uint8_t { kConnectx, kPaper };

// When a rate cut also sets the target rate Rt to the current rate Rc.
enum class DcqcnClamp : std::uint8_t {
  kAlways,              // every cut (paper; firmware CLAMP_TGT_RATE = 1)
  kAfterTimerIncrease,  // only if the rate-increase timer fired since the last cut (firmware
                        // CLAMP_TGT_RATE 0 + CLAMP_TGT_RATE_AFTER_TIME_INC 1; HPCC-ns3
                        // CheckRateDecreaseMlx with ClampTargetRate false)
  kNever,               // fast recovery always heads back to the pre-congestion target
};

// How alpha follows CNPs.
enum class DcqcnAlpha : std::uint8_t {
  kOnCnp,     // paper: alpha = (1-g) alpha + g at each CNP; x (1-g) per alpha_period without one
  kPeriodic,  // firmware: every alpha_period, alpha = (1-g) alpha + g if a CNP arrived during
              // the period, else (1-g) alpha (DOCA "DCQCN CC Parameters", dce_tcp_rtt; HPCC-ns3
              // UpdateAlphaMlx)
};

// What one hyper-increase event adds to Rt.
enum class DcqcnHyperStep : std::uint8_t {
  kByStage,  // i x R_HAI, i = stages past F of the slower counter (QCN 802.1Qau, paper)
  kFixed,    // R_HAI (HPCC-ns3 HyperIncreaseMlx; firmware RPG_HAI_RATE "the rate increase in
             // the hyper increase state")
};

// DCQCN (Zhu et al., SIGCOMM'15) reaction point and notification point. Defaults: ConnectX
// firmware, from shared/reference/cc-defaults.md section 2 (mlxconfig dump of a ConnectX card,
// cross-checked with NVIDIA's DOCA page "DCQCN CC Parameters"); firmware names in brackets.
struct DcqcnParams {
  DcqcnVariant variant = DcqcnVariant::kConnectx;
  // g: [DCE_TCP_G 1019]: alpha keeps 1019/1024 of itself per update, so g = 5/1024.
  double g = 5.0 / 1024;
  // alpha at the first CNP: [INITIAL_ALPHA_VALUE 1023] / 1024.
  double alpha_init = 1023.0 / 1024;
  // alpha update period: [DCE_TCP_RTT 1] us.
  Time alpha_period = 1 * core::kMicrosecond;
  DcqcnAlpha alpha_update = DcqcnAlpha::kPeriodic;
  // Rate-reduce monitor period: CNPs are latched and a cut applied at most once per period, on
  // a periodic check that starts at the first CNP [RATE_REDUCE_MONITOR_PERIOD 4] us (HPCC-ns3
  // RateDecreaseInterval 4 us). 0: cut at each CNP as it arrives (paper).
  Time rate_reduce_period = 4 * core::kMicrosecond;
  DcqcnClamp clamp = DcqcnClamp::kAfterTimerIncrease;
  // A cut never leaves less than this fraction of Rc: [RPG_MIN_DEC_FAC 50] %.
  double min_dec_factor = 0.5;
  // Rate-increase timer: [RPG_TIME_RESET 300] us.
  Time increase_period = 300 * core::kMicrosecond;
  // Byte counter: [RPG_BYTE_RESET 32767] bytes. 0 disables it: timer-only increase, where the
  // timer stage alone decides: F stages of fast recovery, one additive step, then hyper
  // increase (HPCC-ns3 RateIncEventMlx).
  std::uint64_t byte_counter = 32767;
  // F, fast-recovery stages: [RPG_THRESHOLD 1].
  std::uint32_t fast_recovery_steps = 1;
  // R_AI: [RPG_AI_RATE 5] Mb/s. R_HAI: [RPG_HAI_RATE 50] Mb/s.
  Bps rate_ai = 5'000'000;
  Bps rate_hai = 50'000'000;
  DcqcnHyperStep hyper_step = DcqcnHyperStep::kFixed;
  // Rate floor: [RPG_MIN_RATE 1] Mb/s.
  Bps min_rate = 1'000'000;
  // Notification point (receiving NIC): at most one CNP per flow per interval
  // [MIN_TIME_BETWEEN_CNPS 4] us. Read by the receiving NIC, not by these functions.
  Time cnp_interval = 4 * core::kMicrosecond;
};

// The published algorithm with its authors' fluid-model parameters (repository
// jitupadhye-zz/rdma, fluidmodel/dcqcn/dcqcn2.m, read for this module) and its mechanism: a cut
// at each CNP, Rt = Rc at every cut, alpha moved by CNPs.
inline DcqcnParams dcqcn_paper() {
  DcqcnParams p;
  p.variant = DcqcnVariant::kPaper;
  // dcqcn2.m "g = 1/256"; also HPCC-ns3 config.txt EWMA_GAIN 0.00390625.
  p.g = 1.0 / 256;
  // dcqcn2.m initialises alpha to 1, so the first CNP halves the rate.
  p.alpha_init = 1.0;
  // K (tau'): dcqcn2.m "tauprime = 55e-6".
  p.alpha_period = 55 * core::kMicrosecond;
  p.alpha_update = DcqcnAlpha::kOnCnp;
  p.rate_reduce_period = 0;
  p.clamp = DcqcnClamp::kAlways;
  p.min_dec_factor = 0;  // the paper bounds a cut only through alpha <= 1
  // T: dcqcn2.m "timer = 55e-6".
  p.increase_period = 55 * core::kMicrosecond;
  // B: dcqcn2.m "B = 10 * 8 * 1e6" bits = 10 MB (decimal).
  p.byte_counter = 10'000'000;
  // F: dcqcn2.m "F = 5"; dcqcn-model.tex "fixed at 5".
  p.fast_recovery_steps = 5;
  // R_AI: dcqcn2.m "Rai = 40 * 1e6"; dcqcn-model.tex "fixed at 40Mbps".
  p.rate_ai = 40'000'000;
  // R_HAI: UNVERIFIED for the paper, which (like its authors' fluid models, which leave hyper
  // increase out: "we omit hyper-increase", conext2016/dcqcn-convergence.tex) gives no value
  // we could find. 200 Mb/s is the first author's own ns-3 DCQCN model's sample configuration,
  // where it goes with the paper's R_AI of 40 Mb/s (github.com/bobzhuyb/ns3-rdma,
  // windows/ns-3-dev/mix/config.txt, RATE_AI 40Mb/s, RATE_HAI 200Mb/s, from its first commit).
  p.rate_hai = 200'000'000;
  p.hyper_step = DcqcnHyperStep::kByStage;
  // The paper names no floor; HPCC-ns3 RdmaHw MinRate default 100 Mb/s.
  p.min_rate = 100'000'000;
  // N: dcqcn2.m "tau = 50e-6" (dcqcn-protocol.tex: the CNP generation timer).
  p.cnp_interval = 50 * core::kMicrosecond;
  return p;
}

// HPCC (Li et al., SIGCOMM'19), single-rate (aggregate) variant of the paper's Algorithm 1.
struct HpccParams {
  // eta: target utilisation. Paper 95%; HPCC-ns3 TargetUtil default 0.95, config U_TARGET.
  double eta = 0.95;
  // maxStage: paper 5; HPCC-ns3 MiThresh default 5 (config.txt/run.py override it with 0).
  std::uint32_t max_stage = 5;
  // W_AI as a fraction of W_init = line rate x base RTT. HPCC-ns3 run.py RATE_AI =
  // 10 Mb/s x bw/25 (bw in Gb/s) is 4e-4 of line rate at any bw, i.e. the paper's
  // W_AI = W_init (1 - eta)/N with N = 125 concurrent flows.
  double w_ai_fraction = 4e-4;
  // Window floor expressed as a rate: HPCC-ns3 MinRate default 100 Mb/s.
  Bps min_rate = 100'000'000;
  // T, the base RTT of W = rate x T: each flow's own unloaded round trip (SimAI GLOBAL_T 0), or
  // one T for all, the largest of the run's flows (HPCC-ns3 config.txt GLOBAL_T 1 takes the
  // largest over all host pairs; over the flows it is the same when they span the topology).
  bool global_base_rtt = false;
};

// DCTCP (Alizadeh et al., SIGCOMM'10) sender, in one of two forms: TCP's byte window with
// line-rate pacing (the paper), or RoCE's rate-based DCTCP (HPCC-ns3 HandleAckDctcp): the same
// alpha, applied to a paced rate that is cut by alpha/2 on an ECN echo outside a reduction and
// raised by rate_ai once per round trip without one.
struct DctcpParams {
  bool rate_based = false;
  // Rate form: additive increase per round trip, HPCC-ns3 config.txt DCTCP_RATE_AI 1000Mb/s.
  Bps rate_ai = 1'000'000'000;
  // Rate form: floor, HPCC-ns3 RdmaHw MinRate default 100 Mb/s.
  Bps min_rate = 100'000'000;
  // g: paper 1/16; Linux tcp_dctcp.c dctcp_shift_g = 4 (g = 1/2^4); HPCC-ns3 run.py 0.0625.
  double g = 1.0 / 16;
  // Linux tcp_dctcp.c dctcp_alpha_on_init = DCTCP_MAX_ALPHA (alpha starts at 1).
  double alpha_init = 1.0;
};

// TIMELY (Mittal et al., SIGCOMM'15), RTT-gradient rate control per completion event, in two
// named variants, one struct: `hpcc_ns3`, the reference RDMA model's TIMELY with the settings
// its authors' experiments run (HPCC-ns3 UpdateRateTimely and run.py; the default, as the model
// CC studies and SimAI compare against), and `paper`, Algorithm 1 with the paper's parameters.
// No RoCE NIC ships TIMELY, so there are no firmware defaults to prefer.
enum class TimelyVariant : std::uint8_t { kHpccNs3, kPaper };

// Which increases lead to hyper-active increase (HAI), and which increases it speeds up.
enum class TimelyHai : std::uint8_t {
  kGradient,     // paper Algorithm 1: N x delta in the gradient branch once the last hai_after
                 // completions all saw gradient <= 0; below T_low always delta
  kAnyIncrease,  // HPCC-ns3 UpdateRateTimely: once the last hai_after updates were all
                 // increases (below T_low or gradient <= 0), every increase adds RATE_HAI
};

struct TimelyParams {
  TimelyVariant variant = TimelyVariant::kHpccNs3;
  // T_low / T_high: fluid model timely2.m "T_low = 50e-6", "T_high = 500e-6" (citing the
  // paper's section 4.4); HPCC-ns3 TimelyTLow 50000 ns, TimelyTHigh 500000 ns.
  Time t_low = 50 * core::kMicrosecond;
  Time t_high = 500 * core::kMicrosecond;
  // minRTT normalising the gradient: timely2.m "minRTT = 20e-6"; HPCC-ns3 TimelyMinRtt 20 us.
  Time min_rtt = 20 * core::kMicrosecond;
  // delta, the additive step: `delta` when non-zero, else delta_fraction x the NIC's line rate.
  // HPCC-ns3 run.py (cc timely) sets RATE_AI = 10 x bw/10 Mb/s for bw Gb/s links: 1/1000 of the
  // line rate, which is the paper's 10 Mb/s at its 10 Gb/s NICs, scaled.
  Bps delta = 0;
  double delta_fraction = 1e-3;
  // beta: timely2.m "beta = 0.8"; HPCC-ns3 TimelyBeta 0.8.
  double beta = 0.8;
  // EWMA weight of the newest RTT difference: rtt_diff = (1 - a) rtt_diff + a new_diff.
  // timely2.m "alpha = 0.875" (marked "unsure" there) with this convention in
  // fluid_timely.m; HPCC-ns3 TimelyAlpha 0.875, same convention. Paper value not re-read.
  double ewma_alpha = 0.875;
  // HAI: after hai_after qualifying updates in a row (see TimelyHai), an increase adds
  // hai_factor x delta. HPCC-ns3 UpdateRateTimely: incStage >= 5; run.py RATE_HAI = 50 x bw/10
  // Mb/s = 5 x RATE_AI. Paper N = 5 (recalled).
  TimelyHai hai = TimelyHai::kAnyIncrease;
  std::uint32_t hai_after = 5;
  std::uint32_t hai_factor = 5;
  // When the rate is updated. Per round trip: on the first ACK past the snd_nxt of the previous
  // update, as HPCC-ns3 HandleAckTimely does; the number of updates per second then does not
  // fall with the rate, so a flow cut to its floor climbs back within round trips. Per segment
  // (the paper's completion events): one update per segment_bytes acknowledged, where a flow at
  // 100 Mb/s waits 5 ms for its next 64 KB update.
  bool per_rtt = true;
  // Segment size of the per-segment mode (0 = every ACK). timely2.m "Seg = 64 * 8 * 1e3" bits
  // (64 KB segments).
  std::uint64_t segment_bytes = 64'000;
  // Rate floor: HPCC-ns3 run.py MIN_RATE 1000Mb/s (every CC of its experiments).
  Bps min_rate = 1'000'000'000;
};

// Algorithm 1 as published, with the paper's parameters: a fixed 10 Mb/s step, HAI only on
// negative gradients, one update per 64 KB completion event.
inline TimelyParams timely_paper() {
  TimelyParams p;
  p.variant = TimelyVariant::kPaper;
  // delta: timely2.m "delta = 10e6"; cc-defaults.md (paper, 10 Gb/s NICs) 10 Mb/s.
  p.delta = 10'000'000;
  p.hai = TimelyHai::kGradient;
  p.per_rtt = false;
  // The paper names no floor; HPCC-ns3 RdmaHw MinRate default 100 Mb/s.
  p.min_rate = 100'000'000;
  return p;
}

struct Params {
  Kind kind = Kind::kDcqcn;
  DcqcnParams dcqcn;
  HpccParams hpcc;
  DctcpParams dctcp;
  TimelyParams timely;
};

// nullptr when the parameters of p.kind are usable, else a static message naming the bad
// key. The scenario reader turns a message into a ConfigError.
const char* validate(const Params& p);

}  // namespace fabricsim::net::cc
