#pragma once
// Links out of service for a while (a failed optic, a port that resets, a cable pulled during a
// run): the scenario's `cluster.failed_links`. While a link is down, in both directions, every
// frame on it is lost: frames that start on it, and frames on the wire when it fails. Routing
// avoids a down link from the moment it fails until it is back (the switches' local link-down
// failover; a routing protocol's convergence time is not modelled), so what a failure costs is
// what was queued for it or in flight on it, recovered by the transport (go-back-N, timeouts),
// and the traffic it moves onto the remaining paths.
//
// The schedule is fixed before the run, so every logical process reads the link state and the
// routes in force at its own current time without talking to the others: results stay
// independent of the thread count.
#include <cstdint>
#include <vector>

#include "core/time.hpp"
#include "net/config.hpp"
#include "net/topology/routing.hpp"
#include "net/topology/topology.hpp"

namespace fabricsim::net {

class Outages {
 public:
  Outages() = default;
  // Routes for every interval between failures and repairs. Throws std::invalid_argument when an
  // outage names no link of `topo`, does not end after it starts, takes a NIC's only link down for
  // good (its flows could never finish), or cuts the fabric in two while it lasts.
  Outages(const Topology& topo, std::vector<LinkOutage> list);

  // A frame that starts on `link` at t0 and lands at t1 is lost if the link is down at any time
  // from t0 to t1.
  bool loses(LinkId link, core::Time t0, core::Time t1) const {
    if (list_.empty() || !has_outage_[link]) return false;
    for (const LinkOutage& o : list_) {
      if (o.link == link && o.down <= t1 && o.up > t0) return true;
    }
    return false;
  }
  // The routes in force at time t (the ones of an intact fabric before the first failure).
  const Routes& routes(core::Time t) const {
    if (epochs_.size() == 1) return routes_[0];
    std::size_t e = epochs_.size() - 1;
    while (epochs_[e] > t) --e;
    return routes_[e];
  }

 private:
  std::vector<LinkOutage> list_;
  std::vector<std::uint8_t> has_outage_;  // by link
  std::vector<core::Time> epochs_;        // when each set of routes comes into force; [0] = 0
  std::vector<Routes> routes_;            // by epoch
};

}  // namespace fabricsim::net
