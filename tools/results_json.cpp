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
  std::uint64_t drops = 0, lost = 0, marks = 0, pauses = 0;
  for (const net::PortStats& p : r.ports) {
    drops += p.drops;
    lost += p.lost;
    marks += p.ecn_marks;
    pauses += p.pauses_sent;
  }
  out += fmt::format(
      "\n  }},\n  \"results\": {{\n    \"flows\": {},\n    \"flows_finished\": {},\n"
      "    \"fct_mean_us\": {:.6f},\n    \"fct_max_us\": {:.6f},\n    \"end_us\": {:.6f},\n"
      "    \"delivered_bytes\": {},\n    \"drops\": {},\n    \"lost_on_failed_links\": {},\n"
      "    \"ecn_marks\": {},\n"
      "    \"pfc_pauses\": {},\n    \"fct_slowdown_p50\": {:.4f},\n"
      "    \"fct_slowdown_p99\": {:.4f}\n  }},\n",
      r.flows.size(), done, done ? fct_sum / double(done) : 0.0, fct_max, double(r.end) * 1e-6,
      r.delivered, drops, lost, marks, pauses, slowdown_at(0.5), slowdown_at(0.99));
  const core::KernelStats& k = r.kernel;
  out += fmt::format(
      "  \"kernel\": {{\n    \"events\": {},\n    \"windows\": {},\n    \"threads\": {},\n"
      "    \"lps\": {},\n    \"wall_s\": {:.6f},\n    \"events_per_s\": {:.1f}\n  }}\n}}\n",
      k.events, k.windows, k.threads, k.lps, k.wall_s, k.events_per_second());
  return out;
}

namespace {

// One training report's figures, as the members of a JSON object indented by `pad`.
std::string training_fields(const workload::TrainingReport& r, const std::string& pad) {
  // The critical path's time in compute and in communication (workload/critical_path.hpp).
  core::Time path_compute = 0, path_comm = 0;
  for (const core::Time t : r.critical.compute) path_compute += t;
  for (const core::Time t : r.critical.comm) path_comm += t;
  const auto seconds = [](core::Time t) { return static_cast<double>(t) * 1e-12; };
  double exposed = 0;
  for (const double e : r.exposed_s) exposed += e;
  const workload::MemoryEstimate& m = r.memory;
  return fmt::format(
      "{0}\"iteration_s\": {1:.6f},\n{0}\"compute_s\": {2:.6f},\n"
      "{0}\"exposed_comm_s\": {3:.6f},\n{0}\"exposed_tp_s\": {4:.6f},\n"
      "{0}\"exposed_pp_s\": {5:.6f},\n{0}\"exposed_dp_s\": {6:.6f},\n"
      "{0}\"exposed_ep_s\": {7:.6f},\n{0}\"bubble_s\": {8:.6f},\n"
      "{0}\"tflops_per_gpu\": {9:.3f},\n{0}\"mfu\": {10:.5f},\n"
      "{0}\"memory_GB\": {11:.3f},\n{0}\"memory_weights_GB\": {12:.3f},\n"
      "{0}\"memory_gradients_GB\": {13:.3f},\n{0}\"memory_optimizer_GB\": {14:.3f},\n"
      "{0}\"memory_activations_GB\": {15:.3f},\n{0}\"model_flops\": {16:.6e},\n"
      "{0}\"network\": \"{17}\",\n{0}\"network_events\": {18},\n{0}\"queue_pairs\": {19},\n"
      "{0}\"critical_compute_s\": {20:.6f},\n{0}\"critical_comm_s\": {21:.6f},\n"
      "{0}\"critical_ranks\": {22}",
      pad, r.iteration_s, r.compute_s, exposed, r.exposed_s[int(workload::Stream::Tp)],
      r.exposed_s[int(workload::Stream::PpSend)] + r.exposed_s[int(workload::Stream::PpRecv)],
      r.exposed_s[int(workload::Stream::Dp)], r.exposed_s[int(workload::Stream::Ep)], r.bubble_s,
      r.tflops_per_gpu, r.mfu, m.total() / 1e9, m.weights / 1e9, m.gradients / 1e9,
      m.optimizer / 1e9, m.activations / 1e9, r.dag.model_flops, workload::name(r.comm),
      r.network_events, r.queue_pairs, seconds(path_compute), seconds(path_comm),
      r.critical.ranks.size());
}

}  // namespace

std::string results_json(const Scenario& sc, const workload::TrainingReport& r) {
  return config_json(sc) + "\n  },\n  \"results\": {\n" + training_fields(r, "    ") + "\n  }\n}\n";
}

std::string results_json(const Scenario& sc, const workload::JobsReport& r) {
  const std::vector<workload::TrainingJob>& jobs = sc.net->training->jobs;
  std::string out = config_json(sc) + fmt::format(
                                          "\n  }},\n  \"results\": {{\n    \"end_s\": {:.6f},\n"
                                          "    \"jobs\": [",
                                          static_cast<double>(r.end) * 1e-12);
  for (std::size_t j = 0; j < r.jobs.size(); ++j) {
    out += fmt::format(
        "{}\n      {{\n        \"name\": {},\n        \"start_s\": {:.6f},\n{}\n      }}",
        j ? "," : "", quoted(jobs[j].name), static_cast<double>(jobs[j].start) * 1e-12,
        training_fields(r.jobs[j], "        "));
  }
  return out + "\n    ]\n  }\n}\n";
}

}  // namespace fabricsim::tools
