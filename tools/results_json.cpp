#include "tools/results_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

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

namespace {

std::string config_json(const Scenario& sc) {
  const NetScenario& ns = *sc.net;
  std::string out = fmt::format("{{\n  \"schema\": {},\n  \"scenario\": {},\n  \"config\": {{",
                                kResultsSchema, quoted(sc.path));
  for (std::size_t i = 0; i < ns.resolved.size(); ++i) {
    out += fmt::format("{}\n    {}: {}", i ? "," : "", quoted(ns.resolved[i].key),
                       quoted(ns.resolved[i].value));
  }
  return out;
}

}  // namespace

std::string results_json(const Scenario& sc, const std::vector<BusbwRow>& rows) {
  std::string out = config_json(sc);
  double sum = 0, best = 0;
  std::uint64_t events = 0;
  double wall = 0;
  for (const BusbwRow& r : rows) {
    sum += r.busbw_gbps;
    best = std::max(best, r.busbw_gbps);
    events += r.events;
    wall += r.wall_s;
  }
  const BusbwRow last = rows.empty() ? BusbwRow{} : rows.back();
  out += fmt::format(
      "\n  }},\n  \"results\": {{\n    \"sizes\": {},\n    \"avg_busbw_GBps\": {:.4f},\n"
      "    \"max_busbw_GBps\": {:.4f},\n    \"largest_bytes\": {},\n"
      "    \"largest_time_us\": {:.3f},\n    \"largest_busbw_GBps\": {:.4f}\n  }},\n",
      rows.size(), rows.empty() ? 0.0 : sum / static_cast<double>(rows.size()), best, last.bytes,
      last.time_us, last.busbw_gbps);
  out += fmt::format(
      "  \"kernel\": {{\n    \"events\": {},\n    \"wall_s\": {:.6f},\n"
      "    \"events_per_s\": {:.1f}\n  }}\n}}\n",
      events, wall, wall > 0 ? static_cast<double>(events) / wall : 0.0);
  return out;
}

std::string results_json(const Scenario& sc, const net::NetworkResult& r) {
  std::string out = config_json(sc);
  std::size_t done = 0;
  double fct_sum = 0, fct_max = 0;
  std::vector<double> slowdowns;
  for (const net::FlowResult& f : r.flows) {
    if (f.finish < 0) continue;
    ++done;
    fct_sum += double(f.fct()) * 1e-6;
    fct_max = std::max(fct_max, double(f.fct()) * 1e-6);
    if (f.ideal > 0) slowdowns.push_back(f.slowdown());
  }
  std::sort(slowdowns.begin(), slowdowns.end());
  const auto slowdown_at = [&](double q) {
    return slowdowns.empty()
               ? 0.0
               : slowdowns[std::min(slowdowns.size() - 1,
                                    std::size_t(q * double(slowdowns.size() - 1) + 0.5))];
  };
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
      "    \"pfc_pauses\": {},\n    \"fct_slowdown_p50\": {:.4f},\n"
      "    \"fct_slowdown_p99\": {:.4f}\n  }},\n",
      r.flows.size(), done, done ? fct_sum / double(done) : 0.0, fct_max, double(r.end) * 1e-6,
      r.delivered, drops, marks, pauses, slowdown_at(0.5), slowdown_at(0.99));
  const core::KernelStats& k = r.kernel;
  out += fmt::format(
      "  \"kernel\": {{\n    \"events\": {},\n    \"windows\": {},\n    \"threads\": {},\n"
      "    \"lps\": {},\n    \"wall_s\": {:.6f},\n    \"events_per_s\": {:.1f}\n  }}\n}}\n",
      k.events, k.windows, k.threads, k.lps, k.wall_s, k.events_per_second());
  return out;
}

std::string results_json(const Scenario& sc, const workload::TrainingReport& r) {
  std::string out = config_json(sc);
  // The critical path's time in compute and in communication (workload/critical_path.hpp).
  core::Time path_compute = 0, path_comm = 0;
  for (const core::Time t : r.critical.compute) path_compute += t;
  for (const core::Time t : r.critical.comm) path_comm += t;
  const auto seconds = [](core::Time t) { return static_cast<double>(t) * 1e-12; };
  double exposed = 0;
  for (const double e : r.exposed_s) exposed += e;
  const workload::MemoryEstimate& m = r.memory;
  out += fmt::format(
      "\n  }},\n  \"results\": {{\n    \"iteration_s\": {:.6f},\n    \"compute_s\": {:.6f},\n"
      "    \"exposed_comm_s\": {:.6f},\n    \"exposed_tp_s\": {:.6f},\n"
      "    \"exposed_pp_s\": {:.6f},\n    \"exposed_dp_s\": {:.6f},\n"
      "    \"exposed_ep_s\": {:.6f},\n    \"bubble_s\": {:.6f},\n"
      "    \"tflops_per_gpu\": {:.3f},\n    \"mfu\": {:.5f},\n"
      "    \"memory_GB\": {:.3f},\n    \"memory_weights_GB\": {:.3f},\n"
      "    \"memory_gradients_GB\": {:.3f},\n    \"memory_optimizer_GB\": {:.3f},\n"
      "    \"memory_activations_GB\": {:.3f},\n    \"model_flops\": {:.6e},\n"
      "    \"network\": \"{}\",\n    \"network_events\": {},\n    \"queue_pairs\": {},\n"
      "    \"critical_compute_s\": {:.6f},\n    \"critical_comm_s\": {:.6f},\n"
      "    \"critical_ranks\": {}\n  }}\n}}\n",
      r.iteration_s, r.compute_s, exposed, r.exposed_s[int(workload::Stream::Tp)],
      r.exposed_s[int(workload::Stream::PpSend)] + r.exposed_s[int(workload::Stream::PpRecv)],
      r.exposed_s[int(workload::Stream::Dp)], r.exposed_s[int(workload::Stream::Ep)], r.bubble_s,
      r.tflops_per_gpu, r.mfu, m.total() / 1e9, m.weights / 1e9, m.gradients / 1e9,
      m.optimizer / 1e9, m.activations / 1e9, r.dag.model_flops, workload::name(r.comm),
      r.network_events, r.queue_pairs, seconds(path_compute), seconds(path_comm),
      r.critical.ranks.size());
  return out;
}

}  // namespace fabricsim::tools
