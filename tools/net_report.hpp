#pragma once
// What a network run prints and writes: a summary a person reads, and CSV tables of every flow
// and every port for scripts.
#include <string>
#include <vector>

#include "net/network.hpp"

namespace fabricsim::tools {

// The n links busiest over `over` (simulated time): "node -> peer" and busy time / over.
struct BusyLink {
  std::string name;
  double share = 0;
  std::uint32_t port = 0;  // index into NetworkResult::ports
};
// The `n` busiest ports over `over` ps. With `tag` >= 0, busy with that tag's data only (a
// training job's): its payload's time on the link over `over`.
std::vector<BusyLink> busiest_links(const net::Topology& topo, const net::NetworkResult& r,
                                    core::Time over, std::size_t n, int tag = -1);

std::string network_summary(const net::Topology& topo, const std::vector<net::FlowSpec>& flows,
                            const net::NetworkResult& r);

// The value at fraction q in [0, 1] of `v` (nearest rank; 0 when empty).
double percentile(std::vector<double> v, double q);
// Whether a flow's FCT slowdown is part of what a run measures: it finished, and it is not one
// of a Poisson pattern's incast mix (the perturbation, as HPCC's analysis leaves them out).
bool measured_slowdown(const net::FlowSpec& spec, const net::FlowResult& result);

std::string flows_csv(const net::Topology& topo, const std::vector<net::FlowSpec>& flows,
                      const net::NetworkResult& r);
// FCT slowdown (FCT over the flow's FCT alone on the idle network) by flow-size class.
std::string fct_slowdown_csv(const std::vector<net::FlowSpec>& flows, const net::NetworkResult& r);
// `tag_names`: a column of each tag's data bytes (NetworkResult::data_bytes), tag 0 first.
std::string ports_csv(const net::Topology& topo, const net::NetworkResult& r,
                      const std::vector<std::string>& tag_names = {});

// Writes `text` to dir/name through a temporary file and a rename, so a reader never sees a
// truncated file. Creates `dir`. Throws std::runtime_error naming the path on failure.
void write_atomically(const std::string& dir, const std::string& name, const std::string& text);
// The same for one file path (its folder is created).
void write_file_atomically(const std::string& path, const std::string& text);
// Creates `dir` and checks that a file can be written there; throws with the OS's reason.
void check_writable_dir(const std::string& dir);

}  // namespace fabricsim::tools
