// The `network` section: switch buffers, PFC, ECN, routing, NIC transport and congestion
// control. Every default is the C++ struct's (net/config.hpp, net/cc/params.hpp).
#include <fmt/format.h>

#include <limits>
#include <string>

#include "tools/scenario_parts.hpp"
#include "tools/units.hpp"

namespace fabricsim::tools {
namespace {

net::cc::DcqcnParams read_dcqcn(const Section& s) {
  s.only({"variant", "g", "alpha_init", "alpha_period", "alpha_update", "rate_reduce_period",
          "clamp", "min_dec_factor", "increase_period", "byte_counter", "fast_recovery_steps",
          "rate_ai", "rate_hai", "hyper_step", "min_rate", "cnp_interval"});
  // The variant sets every default; each key below overrides one.
  const net::cc::DcqcnParams d =
      s.choice("variant") == "paper" ? net::cc::dcqcn_paper() : net::cc::DcqcnParams{};
  net::cc::DcqcnParams p = d;
  p.g = s.real("g", d.g);
  p.alpha_init = s.real("alpha_init", d.alpha_init);
  p.alpha_period = s.time("alpha_period", d.alpha_period);
  const std::string alpha = s.choice(
      "alpha_update", d.alpha_update == net::cc::DcqcnAlpha::kOnCnp ? "on_cnp" : "periodic");
  p.alpha_update = alpha == "on_cnp" ? net::cc::DcqcnAlpha::kOnCnp : net::cc::DcqcnAlpha::kPeriodic;
  p.rate_reduce_period = s.time("rate_reduce_period", d.rate_reduce_period);  // 0: per CNP
  const char* clamp_default = d.clamp == net::cc::DcqcnClamp::kAlways  ? "always"
                              : d.clamp == net::cc::DcqcnClamp::kNever ? "never"
                                                                       : "after_timer_increase";
  const std::string clamp = s.choice("clamp", clamp_default);
  p.clamp = clamp == "always"  ? net::cc::DcqcnClamp::kAlways
            : clamp == "never" ? net::cc::DcqcnClamp::kNever
                               : net::cc::DcqcnClamp::kAfterTimerIncrease;
  p.min_dec_factor = s.real("min_dec_factor", d.min_dec_factor);
  p.increase_period = s.time("increase_period", d.increase_period);
  p.byte_counter = s.bytes("byte_counter", d.byte_counter);  // 0B: timer only
  p.fast_recovery_steps =
      static_cast<std::uint32_t>(s.uint("fast_recovery_steps", d.fast_recovery_steps));
  p.rate_ai = s.rate("rate_ai", d.rate_ai);
  p.rate_hai = s.rate("rate_hai", d.rate_hai);
  const std::string hyper = s.choice(
      "hyper_step", d.hyper_step == net::cc::DcqcnHyperStep::kFixed ? "fixed" : "by_stage");
  p.hyper_step =
      hyper == "fixed" ? net::cc::DcqcnHyperStep::kFixed : net::cc::DcqcnHyperStep::kByStage;
  p.min_rate = s.rate("min_rate", d.min_rate);
  p.cnp_interval = s.time("cnp_interval", d.cnp_interval);
  return p;
}

net::cc::HpccParams read_hpcc(const Section& s) {
  s.only({"eta", "max_stage", "w_ai_fraction", "min_rate", "base_rtt"});
  const net::cc::HpccParams d;
  net::cc::HpccParams p;
  p.eta = s.real("eta", d.eta);
  p.max_stage = static_cast<std::uint32_t>(s.uint("max_stage", d.max_stage));
  p.w_ai_fraction = s.real("w_ai_fraction", d.w_ai_fraction);
  p.min_rate = s.rate("min_rate", d.min_rate);
  p.global_base_rtt = s.choice("base_rtt", d.global_base_rtt ? "global" : "per_flow") == "global";
  return p;
}

net::cc::DctcpParams read_dctcp(const Section& s) {
  s.only({"g", "alpha_init", "form", "rate_ai", "min_rate"});
  const net::cc::DctcpParams d;
  net::cc::DctcpParams p;
  p.g = s.real("g", d.g);
  p.alpha_init = s.real("alpha_init", d.alpha_init);
  p.rate_based = s.choice("form", d.rate_based ? "rate" : "window") == "rate";
  p.rate_ai = s.rate("rate_ai", d.rate_ai);
  p.min_rate = s.rate("min_rate", d.min_rate);
  return p;
}

net::cc::TimelyParams read_timely(const Section& s) {
  s.only({"variant", "t_low", "t_high", "min_rtt", "delta", "beta", "ewma_alpha", "hai",
          "hai_after", "hai_factor", "update", "segment_bytes", "min_rate"});
  // The variant sets every default; each key below overrides one.
  const net::cc::TimelyParams d =
      s.choice("variant") == "paper" ? net::cc::timely_paper() : net::cc::TimelyParams{};
  net::cc::TimelyParams p = d;
  p.t_low = s.time("t_low", d.t_low);
  p.t_high = s.time("t_high", d.t_high);
  if (p.t_high <= p.t_low) {
    s.fail_key("t_high", fmt::format("must be above t_low ({})", format_time_exact(p.t_low)));
  }
  p.min_rtt = s.time("min_rtt", d.min_rtt);
  if (d.delta != 0 || s.has("delta")) {
    p.delta = s.rate("delta", d.delta != 0 ? std::optional<net::Bps>(d.delta) : std::nullopt);
  } else {
    s.record("delta", fmt::format("{} x line rate", d.delta_fraction), false);
  }
  p.beta = s.real("beta", d.beta);
  p.ewma_alpha = s.real("ewma_alpha", d.ewma_alpha);
  p.hai = s.choice("hai", d.hai == net::cc::TimelyHai::kGradient ? "gradient" : "any_increase") ==
                  "gradient"
              ? net::cc::TimelyHai::kGradient
              : net::cc::TimelyHai::kAnyIncrease;
  p.hai_after = static_cast<std::uint32_t>(s.uint("hai_after", d.hai_after));
  p.hai_factor = static_cast<std::uint32_t>(s.uint("hai_factor", d.hai_factor));
  p.per_rtt = s.choice("update", d.per_rtt ? "per_rtt" : "per_segment") == "per_rtt";
  p.segment_bytes = s.bytes("segment_bytes", d.segment_bytes);  // 0B: every ACK
  p.min_rate = s.rate("min_rate", d.min_rate);
  return p;
}

}  // namespace

net::NetworkConfig read_network(const Section& s) {
  s.only({"cc",
          "routing",
          "mtu",
          "ack_every",
          "ack_class",
          "rto",
          "retry_count",
          "nack_interval",
          "out_of_order",
          "buffer",
          "pfc",
          "pfc_xoff",
          "pfc_alpha",
          "pfc_alpha_by_rate",
          "pfc_resume_offset",
          "pfc_headroom_factor",
          "pfc_pause_quanta",
          "pfc_refresh",
          "egress_alpha",
          "ecn",
          "ecn_kmin",
          "ecn_kmax",
          "ecn_pmax",
          "dcqcn",
          "hpcc",
          "dctcp",
          "timely"});
  const net::NetworkConfig def;
  net::NetworkConfig cfg;

  const std::string cc = s.choice("cc", net::cc::name(def.cc.kind));
  cfg.cc.kind = net::cc::parse_kind(cc);
  // Parameters of an algorithm that does not run would be ignored without a word.
  for (const char* other : {"dcqcn", "hpcc", "dctcp", "timely"}) {
    if (cc != other && s.has(other)) {
      s.fail_key(other, fmt::format("sets {} parameters but network.cc is '{}'", other, cc));
    }
  }
  if (cc == "dcqcn") cfg.cc.dcqcn = read_dcqcn(s.sub("dcqcn"));
  if (cc == "hpcc") cfg.cc.hpcc = read_hpcc(s.sub("hpcc"));
  if (cc == "dctcp") cfg.cc.dctcp = read_dctcp(s.sub("dctcp"));
  if (cc == "timely") cfg.cc.timely = read_timely(s.sub("timely"));
  if (const char* bad = net::cc::validate(cfg.cc)) s.fail_key("cc", bad);

  const char* routing_default = def.sw.routing == net::Routing::kEcmp    ? "ecmp"
                                : def.sw.routing == net::Routing::kSpray ? "spray"
                                                                         : "adaptive";
  const std::string routing = s.choice("routing", routing_default);
  cfg.sw.routing = routing == "ecmp"    ? net::Routing::kEcmp
                   : routing == "spray" ? net::Routing::kSpray
                                        : net::Routing::kAdaptive;

  // A payload above 64 KiB is no Ethernet frame; 9000B jumbo frames are the largest in use.
  cfg.nic.mtu = static_cast<std::uint32_t>(s.bytes("mtu", def.nic.mtu));
  // A count, or the word `message` (read here, so the key is recorded once either way).
  const YAML::Node ack_every = s.has("ack_every") ? s.node()["ack_every"] : YAML::Node();
  const std::string ack_word = ack_every.IsScalar() ? ack_every.Scalar() : "";
  if (ack_word == "message") {
    cfg.nic.ack_every = net::NicConfig::kAckMessageEnds;
    s.record("ack_every", ack_word, true);
  } else {
    if (!ack_word.empty() && ack_word.find_first_not_of("0123456789") != std::string::npos) {
      s.fail_key("ack_every", "must be a whole number or 'message', got '" + ack_word + "'");
    }
    cfg.nic.ack_every = static_cast<std::uint32_t>(s.uint("ack_every", def.nic.ack_every));
  }
  cfg.nic.ack_in_data_class =
      s.choice("ack_class", def.nic.ack_in_data_class ? "data" : "control") == "data";
  cfg.nic.rto = s.time("rto", def.nic.rto);
  cfg.nic.retry_count = static_cast<std::uint32_t>(s.uint("retry_count", def.nic.retry_count));
  cfg.nic.nack_interval = s.time("nack_interval", def.nic.nack_interval);
  cfg.nic.out_of_order = s.boolean("out_of_order", def.nic.out_of_order);

  cfg.sw.buffer_bytes = s.bytes("buffer", def.sw.buffer_bytes);
  cfg.sw.pfc = s.boolean("pfc", def.sw.pfc);
  cfg.sw.pfc_xoff_bytes = s.bytes_in("pfc_xoff", def.sw.pfc_xoff_bytes, 0, cfg.sw.buffer_bytes);
  cfg.sw.pfc_alpha = s.real("pfc_alpha", def.sw.pfc_alpha);
  cfg.sw.pfc_alpha_by_rate = s.boolean("pfc_alpha_by_rate", def.sw.pfc_alpha_by_rate);
  cfg.sw.pfc_resume_offset =
      static_cast<std::uint32_t>(s.bytes("pfc_resume_offset", def.sw.pfc_resume_offset));
  cfg.sw.pfc_headroom_factor = s.real("pfc_headroom_factor", def.sw.pfc_headroom_factor);
  cfg.sw.pfc_pause_quanta =
      static_cast<std::uint32_t>(s.uint("pfc_pause_quanta", def.sw.pfc_pause_quanta));
  cfg.sw.pfc_refresh = s.time("pfc_refresh", def.sw.pfc_refresh);  // 0: half a pause
  cfg.sw.egress_alpha = s.real("egress_alpha", def.sw.egress_alpha);
  cfg.sw.ecn = s.boolean("ecn", def.sw.ecn);
  cfg.sw.kmin_bytes = s.bytes("ecn_kmin", def.sw.kmin_bytes);
  cfg.sw.kmax_bytes = s.bytes("ecn_kmax", def.sw.kmax_bytes);
  if (cfg.sw.kmin_bytes && cfg.sw.kmax_bytes && cfg.sw.kmin_bytes > cfg.sw.kmax_bytes) {
    s.fail_key("ecn_kmin",
               fmt::format("({}) is above ecn_kmax ({})", format_bytes(cfg.sw.kmin_bytes),
                           format_bytes(cfg.sw.kmax_bytes)));
  }
  cfg.sw.pmax = s.real("ecn_pmax", def.sw.pmax);
  return cfg;
}

}  // namespace fabricsim::tools
