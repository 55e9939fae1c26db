#include "tools/results_json.hpp"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>
#include <vector>

#include "tools/net_report.hpp"

namespace fabricsim::tools {
namespace {

using Json = nlohmann::ordered_json;

// A resolved key as `--set` spells it: list items as `list.0`, not `list[0]`.
std::string set_key(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '[') {
      out += '.';
    } else if (c != ']') {
      out += c;
    }
  }
  return out;
}

// A resolved value as JSON: whole numbers, reals and booleans as such; anything with a unit
// ("100Gbps", "1us") or a name stays the text the scenario (or its default) spelled.
Json typed(const std::string& v) {
  if (v == "true") return true;
  if (v == "false") return false;
  // Only what starts as a number is one ("inf" and "nan" are words here: JSON has neither).
  const std::size_t d0 = v.starts_with('-') ? 1 : 0;
  if (v.size() <= d0 || v[d0] < '0' || v[d0] > '9') return v;
  const char* end = v.data() + v.size();
  std::int64_t i = 0;
  if (auto [p, ec] = std::from_chars(v.data(), end, i); ec == std::errc{} && p == end) return i;
  std::uint64_t u = 0;
  if (auto [p, ec] = std::from_chars(v.data(), end, u); ec == std::errc{} && p == end) return u;
  double d = 0;
  if (auto [p, ec] = std::from_chars(v.data(), end, d); ec == std::errc{} && p == end && !v.empty())
    return d;
  return v;
}

Json document(const Scenario& sc) {
  Json config = Json::object();
  for (const ResolvedKey& r : sc.net->resolved) config[set_key(r.key)] = typed(r.value);
  Json doc = Json::object();
  doc["schema"] = kResultsSchema;
  doc["scenario"] = sc.path;
  doc["config"] = std::move(config);
  return doc;
}

std::string text(const Json& doc) {
  return doc.dump(2) + "\n";
}

// One training report's figures.
Json training_fields(const workload::TrainingReport& r) {
  // The critical path's time in compute and in communication (workload/critical_path.hpp).
  core::Time path_compute = 0, path_comm = 0;
  for (const core::Time t : r.critical.compute) path_compute += t;
  for (const core::Time t : r.critical.comm) path_comm += t;
  const auto seconds = [](core::Time t) { return static_cast<double>(t) * 1e-12; };
  double exposed = 0;
  for (const double e : r.exposed_s) exposed += e;
  const workload::MemoryEstimate& m = r.memory;
  const auto stream = [&](workload::Stream s) { return r.exposed_s[static_cast<int>(s)]; };
  Json j = Json::object();
  j["iteration_s"] = r.iteration_s;
  j["compute_s"] = r.compute_s;
  j["exposed_comm_s"] = exposed;
  j["exposed_tp_s"] = stream(workload::Stream::Tp);
  j["exposed_pp_s"] = stream(workload::Stream::PpSend) + stream(workload::Stream::PpRecv);
  j["exposed_dp_s"] = stream(workload::Stream::Dp);
  j["exposed_ep_s"] = stream(workload::Stream::Ep);
  j["bubble_s"] = r.bubble_s;
  // An imported workload gives times, not FLOPs or memory: those are unknown (null), not 0.
  const bool flops = r.dag.model_flops > 0;
  const bool memory = m.total() > 0;
  const auto known = [](bool is, double v) { return is ? Json(v) : Json(nullptr); };
  j["tflops_per_gpu"] = known(flops, r.tflops_per_gpu);
  j["mfu"] = known(flops, r.mfu);
  j["memory_GB"] = known(memory, m.total() / 1e9);
  j["memory_weights_GB"] = known(memory, m.weights / 1e9);
  j["memory_gradients_GB"] = known(memory, m.gradients / 1e9);
  j["memory_optimizer_GB"] = known(memory, m.optimizer / 1e9);
  j["memory_activations_GB"] = known(memory, m.activations / 1e9);
  j["model_flops"] = known(flops, r.dag.model_flops);
  j["network"] = workload::name(r.comm);
  j["network_events"] = r.network_events;
  j["queue_pairs"] = r.queue_pairs;
  j["critical_compute_s"] = seconds(path_compute);
  j["critical_comm_s"] = seconds(path_comm);
  j["critical_ranks"] = r.critical.ranks.size();
  return j;
}

}  // namespace

std::string results_json(const Scenario& sc, const std::vector<BusbwRow>& rows) {
  Json doc = document(sc);
  double sum = 0, best = 0, wall = 0;
  std::uint64_t events = 0;
  for (const BusbwRow& r : rows) {
    sum += r.busbw_gbps;
    best = std::max(best, r.busbw_gbps);
    events += r.events;
    wall += r.wall_s;
  }
  const BusbwRow last = rows.empty() ? BusbwRow{} : rows.back();
  Json& res = doc["results"] = Json::object();
  res["sizes"] = rows.size();
  res["avg_busbw_GBps"] = rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
  res["max_busbw_GBps"] = best;
  res["largest_bytes"] = last.bytes;
  res["largest_time_us"] = last.time_us;
  res["largest_busbw_GBps"] = last.busbw_gbps;
  Json& k = doc["kernel"] = Json::object();
  k["events"] = events;
  k["wall_s"] = wall;
  k["events_per_s"] = wall > 0 ? static_cast<double>(events) / wall : 0.0;
  return text(doc);
}

std::string results_json(const Scenario& sc, const net::NetworkResult& r) {
  Json doc = document(sc);
  std::size_t done = 0;
  double fct_sum = 0, fct_max = 0;
  std::vector<double> slowdowns;
  for (std::size_t i = 0; i < r.flows.size(); ++i) {
    const net::FlowResult& f = r.flows[i];
    if (f.finish < 0) continue;
    ++done;
    fct_sum += double(f.fct()) * 1e-6;
    fct_max = std::max(fct_max, double(f.fct()) * 1e-6);
    if (f.ideal > 0 && measured_slowdown(sc.net->flows[i], f)) slowdowns.push_back(f.slowdown());
  }
  std::uint64_t drops = 0, lost = 0, marks = 0, pauses = 0;
  for (const net::PortStats& p : r.ports) {
    drops += p.drops;
    lost += p.lost;
    marks += p.ecn_marks;
    pauses += p.pauses_sent;
  }
  Json& res = doc["results"] = Json::object();
  res["flows"] = r.flows.size();
  res["flows_finished"] = done;
  // No flow finished: no FCT to speak of (null, not 0).
  res["fct_mean_us"] = done ? Json(fct_sum / double(done)) : Json(nullptr);
  res["fct_max_us"] = done ? Json(fct_max) : Json(nullptr);
  res["end_us"] = double(r.end) * 1e-6;
  res["delivered_bytes"] = r.delivered;
  res["drops"] = drops;
  res["lost_on_failed_links"] = lost;
  res["ecn_marks"] = marks;
  res["pfc_pauses"] = pauses;
  res["fct_slowdown_p50"] = slowdowns.empty() ? Json(nullptr) : Json(percentile(slowdowns, 0.5));
  res["fct_slowdown_p99"] = slowdowns.empty() ? Json(nullptr) : Json(percentile(slowdowns, 0.99));
  const core::KernelStats& ks = r.kernel;
  Json& k = doc["kernel"] = Json::object();
  k["events"] = ks.events;
  k["windows"] = ks.windows;
  k["threads"] = ks.threads;
  k["lps"] = ks.lps;
  k["wall_s"] = ks.wall_s;
  k["events_per_s"] = ks.events_per_second();
  return text(doc);
}

std::string results_json(const Scenario& sc, const workload::TrainingReport& r) {
  Json doc = document(sc);
  doc["results"] = training_fields(r);
  return text(doc);
}

std::string results_json(const Scenario& sc, const workload::JobsReport& r) {
  const std::vector<workload::TrainingJob>& jobs = sc.net->training->jobs;
  Json doc = document(sc);
  Json& res = doc["results"] = Json::object();
  res["end_s"] = static_cast<double>(r.end) * 1e-12;
  Json list = Json::array();
  for (std::size_t j = 0; j < r.jobs.size(); ++j) {
    Json job = Json::object();
    job["name"] = jobs[j].name;
    job["start_s"] = static_cast<double>(jobs[j].start) * 1e-12;
    job.update(training_fields(r.jobs[j]));
    list.push_back(std::move(job));
  }
  res["jobs"] = std::move(list);
  return text(doc);
}

}  // namespace fabricsim::tools
