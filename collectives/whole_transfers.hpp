#pragma once
// The coarse form of a plan for the flow level (`simulation.flow_transfers: whole`): each
// connection's steps become one transfer of all their bytes, none waiting for another, and the
// call pays NCCL's modelled latency of its algorithm and protocol once, before they start.
// What is lost is the pipeline inside the call: its fill and drain, the slot credits, the
// per-step latencies overlapping the data. What stays is how much each connection carries and
// where, so contention on the links (the flow level's max-min shares) is kept. The plan no
// longer describes the data (chunks, reductions): it is for timing only.
//
// Inside a host, the steps of one participant to or from the same peer that carry as many bytes
// (a collective's channels) become one step with Step::copies set, on the lowest of their
// channels: an executor runs it as that many transfers alike, each at its own share, so the
// times are those of one step per channel at a fraction of the steps. Between hosts each channel
// keeps its own step (its own NIC and queue pair).
#include "collectives/plan.hpp"

namespace fabricsim::collectives {

// `layout`: the ranks the plan was made for (its hosts and hardware give the latency).
// Point-to-point plans (all-to-all, send/recv), which NCCL's model does not time, keep the
// executor's per-send latency instead (merged_latency_us 0).
Plan whole_transfers(Plan plan, const RankLayout& layout);

}  // namespace fabricsim::collectives
