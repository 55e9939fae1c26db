#include "core/phold.hpp"

#include "core/partition.hpp"

namespace fabricsim::core {

PholdResult run_phold(const PholdParams& p) {
  if (p.nodes == 0) throw ConfigError("phold: nodes must be positive");
  if (p.lookahead <= 0) throw ConfigError("phold: lookahead must be positive");
  if (p.mean_delay < 0) throw ConfigError("phold: mean delay must not be negative");
  Phold model(p);
  SimConfig cfg;
  cfg.nodes = p.nodes;
  cfg.lp_of_node = block_partition(p.nodes, p.lps);
  cfg.threads = p.threads;
  cfg.seed = p.seed;
  cfg.end = p.end;
  cfg.any_to_any_delay = p.lookahead;
  cfg.trace_hash = p.trace_hash;
  cfg.progress = p.progress;
  cfg.progress_ctx = p.progress_ctx;
  cfg.ranks = p.ranks;
  Simulation<Phold> sim(model, std::move(cfg));
  for (NodeId n = 0; n < p.nodes; ++n) {
    for (std::uint32_t k = 0; k < p.events_per_node; ++k) {
      sim.schedule_initial(n, static_cast<Time>(sim.rng(n).exponential(double(p.mean_delay))), 0);
    }
  }
  PholdResult r;
  r.stats = sim.run();
  r.trace_hash = sim.trace_hash();
  return r;
}

}  // namespace fabricsim::core
