#include "tools/net_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "core/ranks.hpp"
#include "net/flows.hpp"
#include "tools/csv.hpp"

namespace fabricsim::tools {
namespace {

double us(core::Time t) {
  return double(t) * 1e-6;
}

// Size classes of FCT slowdown: the decades HPCC's and DCQCN's evaluations plot.
struct SizeClass {
  const char* name;
  std::uint64_t below;  // bytes
};
constexpr SizeClass kSizeClasses[] = {{"<10KB", 10'000},
                                      {"10KB-100KB", 100'000},
                                      {"100KB-1MB", 1'000'000},
                                      {"1MB-10MB", 10'000'000},
                                      {">=10MB", ~0ULL}};

struct SlowdownClass {
  const char* name;
  std::vector<double> slowdowns;
};

std::vector<SlowdownClass> slowdown_classes(const std::vector<net::FlowSpec>& flows,
                                            const net::NetworkResult& r) {
  std::vector<SlowdownClass> out;
  for (const SizeClass& c : kSizeClasses) out.push_back({c.name, {}});
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (!measured_slowdown(flows[f], r.flows[f])) continue;
    std::size_t c = 0;
    while (flows[f].bytes >= kSizeClasses[c].below) ++c;
    out[c].slowdowns.push_back(r.flows[f].slowdown());
  }
  return out;
}

}  // namespace

double percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5));
  return v[i];
}

bool measured_slowdown(const net::FlowSpec& spec, const net::FlowResult& result) {
  return result.finish >= 0 && spec.tag != net::kIncastTag;
}

std::string fct_slowdown_csv(const std::vector<net::FlowSpec>& flows, const net::NetworkResult& r) {
  std::string out = "size_class,flows,slowdown_p50,slowdown_p95,slowdown_p99,slowdown_max\n";
  for (const SlowdownClass& c : slowdown_classes(flows, r)) {
    if (c.slowdowns.empty()) continue;
    out += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f}\n", csv_field(c.name), c.slowdowns.size(),
                       percentile(c.slowdowns, 0.5), percentile(c.slowdowns, 0.95),
                       percentile(c.slowdowns, 0.99), percentile(c.slowdowns, 1));
  }
  return out;
}

std::vector<BusyLink> busiest_links(const net::Topology& topo, const net::NetworkResult& r,
                                    core::Time over, std::size_t n, int tag) {
  std::vector<BusyLink> all;
  for (net::NodeId v = 0; v < topo.nodes.size(); ++v) {
    for (net::PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      const std::uint32_t port = r.port_base[v] + p;
      const double busy = tag < 0 ? double(r.ports[port].busy)
                                  : double(r.data_bytes(port, static_cast<std::uint32_t>(tag))) *
                                        8e12 / double(topo.link_at(v, p).rate);
      all.push_back({topo.nodes[v].name + " -> " + topo.nodes[topo.peer(v, p)].name,
                     over > 0 ? busy / double(over) : 0.0, port});
    }
  }
  // Busiest first; ties keep the topology's order.
  std::stable_sort(all.begin(), all.end(),
                   [](const BusyLink& a, const BusyLink& b) { return a.share > b.share; });
  if (all.size() > n) all.resize(n);
  return all;
}

std::string network_summary(const net::Topology& topo, const std::vector<net::FlowSpec>& flows,
                            const net::NetworkResult& r) {
  std::vector<double> fct;
  std::uint64_t retx = 0, timeouts = 0;
  for (const net::FlowResult& f : r.flows) {
    if (f.finish >= 0) fct.push_back(us(f.fct()));
    retx += f.retransmitted_bytes;
    timeouts += f.timeouts;
  }
  std::string out = fmt::format("flows             {} of {} finished\n", fct.size(), flows.size());
  if (!fct.empty()) {
    out += fmt::format("FCT (us)          min {:.2f}  median {:.2f}  p99 {:.2f}  max {:.2f}\n",
                       percentile(fct, 0), percentile(fct, 0.5), percentile(fct, 0.99),
                       percentile(fct, 1));
  }
  // FCT slowdown: FCT over the flow's FCT alone on the idle network, by size class when the
  // flows' sizes span more than one; an incast mix's flows apart.
  std::vector<double> slowdowns, incast_fct;
  for (std::size_t f = 0; f < flows.size(); ++f) {
    if (measured_slowdown(flows[f], r.flows[f])) {
      slowdowns.push_back(r.flows[f].slowdown());
    } else if (r.flows[f].finish >= 0) {
      incast_fct.push_back(us(r.flows[f].fct()));
    }
  }
  if (!incast_fct.empty()) {
    out += fmt::format(
        "incast flows      {} (left out of the slowdowns below): FCT (us) median {:.2f}  max "
        "{:.2f}\n",
        incast_fct.size(), percentile(incast_fct, 0.5), percentile(incast_fct, 1));
  }
  if (!slowdowns.empty()) {
    out += fmt::format("FCT slowdown      p50 {:.2f}  p95 {:.2f}  p99 {:.2f}  max {:.2f}\n",
                       percentile(slowdowns, 0.5), percentile(slowdowns, 0.95),
                       percentile(slowdowns, 0.99), percentile(slowdowns, 1));
    const std::vector<SlowdownClass> classes = slowdown_classes(flows, r);
    if (std::count_if(classes.begin(), classes.end(),
                      [](const SlowdownClass& c) { return !c.slowdowns.empty(); }) > 1) {
      for (const SlowdownClass& c : classes) {
        if (c.slowdowns.empty()) continue;
        out += fmt::format("  {:<14}  {:>7} flows  p50 {:7.2f}  p95 {:7.2f}  p99 {:7.2f}\n", c.name,
                           c.slowdowns.size(), percentile(c.slowdowns, 0.5),
                           percentile(c.slowdowns, 0.95), percentile(c.slowdowns, 0.99));
      }
    }
  }
  // The busiest port, and totals over all ports.
  std::uint64_t marks = 0, pauses = 0, drops = 0, lost = 0, max_queue = 0;
  core::Time paused = 0;
  for (const net::PortStats& s : r.ports) {
    marks += s.ecn_marks;
    pauses += s.pauses_sent;
    drops += s.drops;
    lost += s.lost;
    paused += s.paused;
    max_queue = std::max(max_queue, s.max_queue_bytes);
  }
  for (const BusyLink& l : busiest_links(topo, r, r.end, 1)) {
    out += fmt::format("busiest link      {}: {:.1f}% busy\n", l.name, 100 * l.share);
  }
  if (r.fidelity == net::Fidelity::kFlow) {
    out += "queues, losses    none at flow level (fluid flows: no queues, PFC, ECN or drops)\n";
  } else {
    out += fmt::format(
        "queues            max {} bytes; ECN marks {}; PFC pauses {} ({:.1f} us paused in all)\n",
        max_queue, marks, pauses, us(paused));
    out += fmt::format(
        "losses            {} packets dropped; {}{} bytes retransmitted; {} timeouts\n", drops,
        lost ? fmt::format("{} frames lost on failed links; ", lost) : "", retx, timeouts);
  }
  out += fmt::format("delivered         {} bytes; NICs sent {} payload bytes, received {}\n",
                     r.delivered, r.nic_data_sent, r.nic_data_received);
  out += fmt::format("traffic until     {} (the last ACK or data frame; timers may run later)\n",
                     core::format_time(r.end));
  out += r.kernel.summary();
  return out;
}

std::string flows_csv(const net::Topology& topo, const std::vector<net::FlowSpec>& flows,
                      const net::NetworkResult& r) {
  std::string out =
      "flow,src,dst,bytes,start_us,finish_us,fct_us,goodput_gbps,retransmitted_bytes,timeouts,"
      "ecn_echoed_bytes,ideal_fct_us,slowdown,acked_us,ideal_acked_us,incast\n";
  for (std::size_t f = 0; f < flows.size(); ++f) {
    const net::FlowResult& fr = r.flows[f];
    const bool done = fr.finish >= 0;
    out += fmt::format(
        "{},{},{},{},{:.6f},{},{},{},{},{},{},{:.6f},{},{},{:.6f},{}\n", f,
        csv_field(topo.nodes[topo.nics[flows[f].src_nic]].name),
        csv_field(topo.nodes[topo.nics[flows[f].dst_nic]].name), flows[f].bytes, us(fr.start),
        done ? fmt::format("{:.6f}", us(fr.finish)) : "",
        done ? fmt::format("{:.6f}", us(fr.fct())) : "",
        done ? fmt::format("{:.4f}", double(flows[f].bytes) * 8e3 / double(fr.fct())) : "",
        fr.retransmitted_bytes, fr.timeouts, fr.ecn_echoed_bytes, us(fr.ideal),
        done ? fmt::format("{:.4f}", fr.slowdown()) : "",
        fr.acked >= 0 ? fmt::format("{:.6f}", us(fr.acked)) : "", us(fr.ideal_acked),
        flows[f].tag == net::kIncastTag ? 1 : 0);
  }
  return out;
}

std::string ports_csv(const net::Topology& topo, const net::NetworkResult& r,
                      const std::vector<std::string>& tag_names) {
  std::string out =
      "node,port,peer,rate_gbps,tx_bytes,tx_data_bytes,busy_pct,max_queue_bytes,mean_queue_bytes,"
      "ecn_marks,drops,lost,pauses_sent,pauses_received,paused_us";
  for (const std::string& n : tag_names) out += ",data_bytes_" + csv_field(n);
  out += "\n";
  for (net::NodeId v = 0; v < topo.nodes.size(); ++v) {
    for (net::PortId p = 0; p < topo.nodes[v].ports.size(); ++p) {
      const net::PortStats& s = r.ports[r.port_base[v] + p];
      const double span = r.end > 0 ? double(r.end) : 1;
      out +=
          fmt::format("{},{},{},{},{},{},{:.3f},{},{:.1f},{},{},{},{},{},{:.3f}",
                      csv_field(topo.nodes[v].name), p, csv_field(topo.nodes[topo.peer(v, p)].name),
                      double(topo.link_at(v, p).rate) * 1e-9, s.tx_bytes, s.tx_data_bytes,
                      100 * double(s.busy) / span, s.max_queue_bytes, s.queue_byte_ps / span,
                      s.ecn_marks, s.drops, s.lost, s.pauses_sent, s.pauses_received, us(s.paused));
      for (std::uint32_t t = 0; t < tag_names.size(); ++t) {
        out += fmt::format(",{}", r.data_bytes(r.port_base[v] + p, t));
      }
      out += "\n";
    }
  }
  return out;
}

void write_file_atomically(const std::string& path, const std::string& text) {
  // Under mpirun every rank holds the whole run's results; rank 0 writes them.
  if (core::Ranks::world().rank() != 0) return;
  namespace fs = std::filesystem;
  const fs::path final_path(path);
  std::error_code ec;
  if (final_path.has_parent_path()) fs::create_directories(final_path.parent_path(), ec);
  const fs::path tmp = final_path.string() + ".tmp";
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    // A full disk may only show when the last block is flushed.
    out.close();
    if (!out) {
      const std::string why = errno ? std::strerror(errno) : "write failed";
      fs::remove(tmp, ec);
      throw std::runtime_error("cannot write " + tmp.string() + ": " + why);
    }
  }
  fs::rename(tmp, final_path, ec);
  if (ec) throw std::runtime_error("cannot write " + final_path.string() + ": " + ec.message());
}

void check_writable_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create the output folder " + dir + ": " + ec.message());
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error("the output folder " + dir + " is not a directory");
  }
  // Probe before the run, so that minutes of simulation are not lost to a read-only folder.
  write_file_atomically((fs::path(dir) / ".fabricsim-write-test").string(), "ok\n");
  fs::remove(fs::path(dir) / ".fabricsim-write-test", ec);
}

void write_atomically(const std::string& dir, const std::string& name, const std::string& text) {
  write_file_atomically((std::filesystem::path(dir) / name).string(), text);
}

}  // namespace fabricsim::tools
