#include "net/cc/congestion_control.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace fabricsim::net::cc {

Kind parse_kind(std::string_view text) {
  for (Kind k : {Kind::kNone, Kind::kDcqcn, Kind::kHpcc, Kind::kDctcp, Kind::kTimely}) {
    if (text == name(k)) return k;
  }
  throw std::invalid_argument("unknown congestion control '" + std::string(text) +
                              "' (expected none, dcqcn, hpcc, dctcp or timely)");
}

const char* name(Kind kind) {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kDcqcn:
      return "dcqcn";
    case Kind::kHpcc:
      return "hpcc";
    case Kind::kDctcp:
      return "dctcp";
    case Kind::kTimely:
      return "timely";
  }
  return "?";
}

const char* validate(const Params& p) {
  switch (p.kind) {
    case Kind::kNone:
      return nullptr;
    case Kind::kDcqcn: {
      const DcqcnParams& d = p.dcqcn;
      if (!(d.g > 0 && d.g <= 1)) return "dcqcn.g must be in (0, 1]";
      if (!(d.alpha_init >= 0 && d.alpha_init <= 1)) return "dcqcn.alpha_init must be in [0, 1]";
      if (d.alpha_period <= 0) return "dcqcn.alpha_period must be > 0";
      if (d.increase_period <= 0) return "dcqcn.increase_period must be > 0";
      if (d.rate_reduce_period < 0) return "dcqcn.rate_reduce_period must be >= 0";
      if (!(d.min_dec_factor >= 0 && d.min_dec_factor <= 1)) {
        return "dcqcn.min_dec_factor must be in [0, 1]";
      }
      return nullptr;
    }
    case Kind::kHpcc: {
      const HpccParams& h = p.hpcc;
      if (!(h.eta > 0 && h.eta <= 1)) return "hpcc.eta must be in (0, 1]";
      if (!(h.w_ai_fraction >= 0 && h.w_ai_fraction < 1)) {
        return "hpcc.w_ai_fraction must be in [0, 1)";
      }
      return nullptr;
    }
    case Kind::kDctcp: {
      const DctcpParams& d = p.dctcp;
      if (!(d.g > 0 && d.g <= 1)) return "dctcp.g must be in (0, 1]";
      if (!(d.alpha_init >= 0 && d.alpha_init <= 1)) return "dctcp.alpha_init must be in [0, 1]";
      return nullptr;
    }
    case Kind::kTimely: {
      const TimelyParams& t = p.timely;
      if (t.t_low <= 0 || t.t_high <= t.t_low) return "timely needs 0 < t_low < t_high";
      if (t.min_rtt <= 0) return "timely.min_rtt must be > 0";
      if (!(t.beta > 0 && t.beta <= 1)) return "timely.beta must be in (0, 1]";
      if (!(t.ewma_alpha > 0 && t.ewma_alpha <= 1)) return "timely.ewma_alpha must be in (0, 1]";
      return nullptr;
    }
  }
  return "unknown congestion-control kind";
}

void init(State& s, const Params& p, Bps line_rate, Time base_rtt,
          std::uint32_t mtu_payload_bytes) {
  s = State{};
  s.kind = p.kind;
  s.path = Path{line_rate, base_rtt, mtu_payload_bytes};
  switch (p.kind) {
    case Kind::kNone:
      break;
    case Kind::kDcqcn:
      s.dcqcn = DcqcnState{};  // starts the member's lifetime
      dcqcn::init(s.dcqcn, p.dcqcn, s.path);
      break;
    case Kind::kHpcc:
      s.hpcc = HpccState{};  // starts the member's lifetime
      hpcc::init(s.hpcc, p.hpcc, s.path);
      break;
    case Kind::kDctcp:
      s.dctcp = DctcpState{};  // starts the member's lifetime
      dctcp::init(s.dctcp, p.dctcp, s.path);
      break;
    case Kind::kTimely:
      s.timely = TimelyState{};  // starts the member's lifetime
      timely::init(s.timely, p.timely, s.path);
      break;
  }
}

void advance(State& s, const Params& p, Time now) {
  if (s.kind == Kind::kDcqcn) dcqcn::advance(s.dcqcn, p.dcqcn, s.path, now);
}

void on_send(State& s, const Params& p, Time now, std::uint32_t bytes) {
  if (s.kind == Kind::kDcqcn) dcqcn::on_send(s.dcqcn, p.dcqcn, s.path, now, bytes);
}

void on_cnp(State& s, const Params& p, Time now) {
  if (s.kind == Kind::kDcqcn) dcqcn::on_cnp(s.dcqcn, p.dcqcn, s.path, now);
}

void on_ack(State& s, const Params& p, Time now, const AckInfo& ack) {
  switch (s.kind) {
    case Kind::kNone:
      break;
    case Kind::kDcqcn:
      dcqcn::advance(s.dcqcn, p.dcqcn, s.path, now);
      break;
    case Kind::kHpcc:
      hpcc::on_ack(s.hpcc, p.hpcc, s.path, ack);
      break;
    case Kind::kDctcp:
      dctcp::on_ack(s.dctcp, p.dctcp, s.path, ack);
      break;
    case Kind::kTimely:
      timely::on_ack(s.timely, p.timely, s.path, ack);
      break;
  }
}

Bps rate(const State& s) {
  switch (s.kind) {
    case Kind::kNone:
      return s.path.line_rate;
    case Kind::kDcqcn:
      return s.dcqcn.rc;
    case Kind::kHpcc:
      return hpcc::rate(s.hpcc, s.path);
    case Kind::kDctcp:
      return s.dctcp.rate_based ? static_cast<Bps>(s.dctcp.rate + 0.5)
                                : s.path.line_rate;  // the window form is ACK-clocked
    case Kind::kTimely:
      return timely::rate(s.timely);
  }
  return s.path.line_rate;
}

Time next_increase(const State& s) {
  if (s.kind == Kind::kDcqcn && s.dcqcn.increasing) return s.dcqcn.inc_next;
  return core::kTimeMax;
}

std::uint64_t window_bytes(const State& s) {
  switch (s.kind) {
    // 0 means "no limit", so a window never rounds down to it.
    case Kind::kHpcc:
      return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(s.hpcc.w + 0.5));
    case Kind::kDctcp:
      if (s.dctcp.rate_based) return 0;
      return std::max<std::uint64_t>(1, dctcp::window_bytes(s.dctcp));
    default:
      return 0;
  }
}

}  // namespace fabricsim::net::cc
