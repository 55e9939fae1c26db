#include "tools/results_json.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace fabricsim::tools {
namespace {

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string results_json(const Scenario& sc, const net::NetworkResult& r) {
  const NetScenario& ns = *sc.net;
  std::string out = fmt::format("{{\n  \"schema\": {},\n  \"scenario\": {},\n  \"config\": {{",
                                kResultsSchema, quoted(sc.path));
  for (std::size_t i = 0; i < ns.resolved.size(); ++i) {
    out += fmt::format("{}\n    {}: {}", i ? "," : "", quoted(ns.resolved[i].key),
                       quoted(ns.resolved[i].value));
  }
  std::size_t done = 0;
  double fct_sum = 0, fct_max = 0;
  for (const net::FlowResult& f : r.flows) {
    if (f.finish < 0) continue;
    ++done;
    fct_sum += double(f.fct()) * 1e-6;
    fct_max = std::max(fct_max, double(f.fct()) * 1e-6);
  }
  std::uint64_t drops = 0, marks = 0, pauses = 0;
  for (const net::PortStats& p : r.ports) {
    drops += p.drops;
    marks += p.ecn_marks;
    pauses += p.pauses_sent;
  }
  out += fmt::format(
      "\n  }},\n  \"results\": {{\n    \"flows\": {},\n    \"flows_finished\": {},\n"
      "    \"fct_mean_us\": {:.6f},\n    \"fct_max_us\": {:.6f},\n    \"end_us\": {:.6f},\n"
      "    \"delivered_bytes\": {},\n    \"drops\": {},\n    \"ecn_marks\": {},\n"
      "    \"pfc_pauses\": {}\n  }},\n",
      r.flows.size(), done, done ? fct_sum / double(done) : 0.0, fct_max, double(r.end) * 1e-6,
      r.delivered, drops, marks, pauses);
  const core::KernelStats& k = r.kernel;
  out += fmt::format(
      "  \"kernel\": {{\n    \"events\": {},\n    \"windows\": {},\n    \"threads\": {},\n"
      "    \"lps\": {},\n    \"wall_s\": {:.6f},\n    \"events_per_s\": {:.1f}\n  }}\n}}\n",
      k.events, k.windows, k.threads, k.lps, k.wall_s, k.events_per_second());
  return out;
}

}  // namespace fabricsim::tools
