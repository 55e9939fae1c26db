#include "tools/scenario_keys.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "collectives/tuning.hpp"
#include "compute/gpu.hpp"
#include "tools/scenario_parts.hpp"
#include "tools/units.hpp"

namespace fabricsim::tools {
namespace {

constexpr std::array<KeyTable, 25> kTables{{
    {"simulation", "simulation", "simulation", "", ""},
    {"phold", "workload.phold", "workload.phold", "", ""},
    {"cluster", "cluster", "cluster", "", ""},
    {"host", "cluster.host", "cluster.host", "", ""},
    {"link", "cluster.{link}", "links: nic_link, uplink, edge_agg, agg_core, local, global, link",
     "", ""},
    {"single", "cluster", "topology single", "", ""},
    {"fat_tree", "cluster", "topology fat_tree", "", ""},
    {"fat_tree_3tier", "cluster", "topology fat_tree_3tier", "", ""},
    {"rail_optimized", "cluster", "topology rail_optimized", "", ""},
    {"dragonfly", "cluster", "topology dragonfly", "", ""},
    {"torus", "cluster", "topology torus, mesh", "", ""},
    {"custom", "cluster", "topology custom", "", ""},
    {"network", "network", "network", "", ""},
    {"dcqcn", "network.dcqcn", "network.dcqcn", "", "default `connectx` / `paper`"},
    {"hpcc", "network.hpcc", "network.hpcc", "", ""},
    {"dctcp", "network.dctcp", "network.dctcp", "", ""},
    {"timely", "network.timely", "network.timely", "", ""},
    {"flows_pattern", "workload.flows", "workload.flows", "", ""},
    {"flows", "workload.flows", "workload.flows, by pattern", "", ""},
    {"collectives", "collectives", "collectives", "", ""},
    {"training", "training", "training", "", ""},
    {"model", "training.model", "training.model", "", ""},
    {"jobs_model", "training.jobs[i].model", "training.jobs[i].model", "model", ""},
    {"jobs", "training.jobs[i]", "training.jobs[i]", "training", ""},
    {"sweep", "sweep", "sweep", "", ""},
}};

// clang-format off
constexpr KeyInfo kRows[] = {
    // simulation
    {"simulation", "`seed`", "count 0-2^64-1", "`1`",
     "seed of every random draw (PHOLD, `permutation`, NIC/switch randomness)"},
    {"simulation", "`end`", "time >= 1ps, or `inf`", "flows / collectives: no limit (`inf`); phold: `1ms`",
     "simulated time at which the run stops (`inf`: no limit). Network runs otherwise end when the traffic ends; a collectives run applies it to each size"},
    {"simulation", "`threads`", "count 1-1024", "`1`",
     "worker threads (`--threads` overrides it). Results do not depend on it"},
    {"simulation", "`fidelity`", "choice: `packet`, `flow`, `analytical`", "`packet`",
     "`flow`: the network as fluid flows, each on its ECMP path at its max-min fair share of the links it crosses (`docs/network.md`, \"The flow level\"): flows, collectives and training run unchanged, with contention but no queues, PFC, ECN, drops or congestion control; one LP, so `threads` only shares out the set-up (each rank's state and checks); not with `network.routing: spray` or `adaptive`. `analytical`: closed forms, no network run: a `collectives` sweep timed by NCCL's own tuning model (the time it estimates for the algorithm and protocol it picks; not for all-to-all and send/recv, which NCCL's model does not time), and a `training` iteration whose distinct communications take NCCL's estimate (collectives) or an alpha-beta form on the scenario's NVLink and NIC rates (send/recv, all-to-all), replayed in its schedule (`docs/training.md` §1.4; not with `jobs` or `training.network: packet`). Milliseconds for any cluster, and none of the network's behaviour (congestion, PFC, routing, the scenario's network keys). Not for flows or PHOLD. docs/collectives.md and docs/training.md compare the levels with the measurements"},
    {"simulation", "`flow_transfers`", "choice: `steps`, `whole`", "`steps`",
     "at the flow level, what one fluid transfer is: `steps`, each step of NCCL's plan (its pipeline, slots and per-step latencies kept); `whole`, each connection's share of a collective or transfer, all its bytes at once after NCCL's modelled latency of the call (`collectives/whole_transfers.hpp`): tens of times fewer events, contention kept, pipeline fill and per-step timing lost (`docs/network.md`, \"The flow level\", gives the differences measured)"},
    {"simulation", "`lps`", "count 0-1048576", "`0`",
     "logical processes; `0` chooses: phold min(`nodes`, 16 x `threads`), network runs 8 x `threads` (clamped to what the topology can use). PHOLD refuses more LPs than nodes"},
    // workload.phold
    {"phold", "`nodes`", "count 1-16777216", "`1024`",
     "PHOLD nodes"},
    {"phold", "`events_per_node`", "count 1-65536", "`16`",
     "events each node starts with"},
    {"phold", "`lookahead`", "time >= 1ps", "`1us`",
     "fixed part of every delay: the kernel's lookahead"},
    {"phold", "`mean_delay`", "time >= 0", "`1us`",
     "mean of the exponential part"},
    // cluster
    {"cluster", "`topology`", "choice: `single`, `fat_tree`, `fat_tree_3tier`, `rail_optimized`, `dragonfly`, `torus`, `mesh`, `custom`", "required",
     "which builder (`net/topology/build.hpp`); decides the other keys allowed below"},
    {"cluster", "`host`", "section", "see 3.3.1",
     "what every host holds"},
    {"cluster", "`nic_link`", "link (3.3.2)", "required (not allowed with `custom`)",
     "NIC to its switch"},
    {"cluster", "`degraded_links`", "list of `{a, b, rate}`", "none",
     "every link between nodes `a` and `b` (names as `fabricsim topo --dot` writes them, e.g. `leaf0`, `spine1`, `host3.nic0`) runs at `rate`, at most its built rate, in both directions: a port that negotiated a lower speed, a failing optic. Any topology kind"},
    {"cluster", "`degraded_links[i].a`, `degraded_links[i].b`", "text, a node name", "required",
     "the link's two ends"},
    {"cluster", "`degraded_links[i].rate`", "rate", "required",
     "the rate it runs at"},
    {"cluster", "`failed_links`", "list of `{a, b, at, until}`", "none",
     "every link between nodes `a` and `b` goes down at `at` and is back at `until` (left out: never; a NIC's own link must come back). While down, frames sent on it or on the wire are lost (counted as \"frames lost on failed links\", recovered by go-back-N or the timeout), and every switch routes around it; times count from the start of the run (each size of a collectives sweep is its own run). Packet level only; refused when it cuts the fabric in two. `docs/network.md`, \"Link failures\""},
    {"cluster", "`failed_links[i].a`, `failed_links[i].b`", "text, a node name", "required",
     "the link's two ends"},
    {"cluster", "`failed_links[i].at`", "time >= 0", "required",
     "when it goes down"},
    {"cluster", "`failed_links[i].until`", "time >= 1ps, after `at`", "never",
     "when it is back"},
    {"cluster", "`sharp`", "bool", "`false`",
     "topologies `single`, `fat_tree`, `rail_optimized`: the top switches reduce in the network (InfiniBand SHARP): each (the one switch; the spines) gets an aggregation node `sharp<k>`, a host without GPUs on an internal port as fast as the switch's other ports together. NCCL's CollNet uses them with `collectives.collnet` (`docs/collectives.md`, \"CollNet\"); refused in flows runs, whose patterns would take them for hosts"},
    {"cluster", "*per kind*", "", "",
     "see 3.3.3"},
    // cluster.host
    {"host", "`gpus`", "count 0-1024", "`8` (DGX H100 datasheet; HGX A100/H100 boards carry 8 too)",
     "GPUs per host; `0` for a network-only study (then `gpu_link` and `gpu_latency` may be left out)"},
    {"host", "`gpu`", "text, a GPU model (table below), case-insensitive", "none",
     "GPU model. Required by `collectives`; supplies the default of `gpu_link`"},
    {"host", "`cpu`", "choice: `intel`, `amd`, `arm`", "`intel` (DGX H100 and DGX B200 datasheets: Intel Xeon Platinum)",
     "the host CPU's maker. NCCL's tuning reads it across hosts: LL's bandwidth cap (`llMaxBws` by CPU: Intel/Arm 39 GB/s on 2 nodes, 20.4 beyond; AMD 22.5, 19.0) and the per-step network overhead (`getNetOverhead`: 2 us on AMD, 1 us otherwise); Blackwell on x86 also takes the tree correction for NVLSTree. DGX A100: `amd` (AMD EPYC 7742); GH200: `arm`"},
    {"host", "`nic_path`", "choice: `pcie_switch`, `cpu`, `c2c`", "`pcie_switch` (HGX A100/H100/B200: each GPU shares a PCIe switch with its NIC)",
     "how a GPU reaches its NIC, in NCCL's path terms: `pcie_switch` PIX/PXB, `cpu` PHB (through the CPU's PCIe host bridge), `c2c` a Grace CPU reached over NVLink-C2C (GH200, GB200: PHB before NCCL 2.27, P2C from 2.27). NCCL enables LL128 between hosts by default only up to PXB (and P2C from 2.27 on Hopper+)"},
    {"host", "`transport`", "choice: `ib`, `efa-p4d`, `efa-p5`, `efa-p5en`", "`ib` (NCCL's own verbs transport: InfiniBand and RoCE NICs)",
     "the transport NCCL runs between hosts: `ib` NCCL's IB verbs transport; `efa-*` AWS EFA through the aws-ofi-nccl plugin, by its platform class (`efa-p4d`: p4d, p4de; `efa-p5`: p5, p5e; `efa-p5en`: p5en, p6-b200). Two latencies follow from it (docs/collectives.md, \"Running a plan\"): what it reports to NCCL's tuner (EFA 75 us, p5en 35 us, added per network hop, twice for Simple), which steers the choice of algorithm and protocol, and what a message takes (EFA: 20 us, p5en 18 us, +3 us for Simple), which replaces NCCL's IB hop latencies in the run"},
    {"host", "`nics`", "count 1-256", "`1`",
     "NICs per host; in `rail_optimized`, the number of rails"},
    {"host", "`gpu_link`", "rate", "the model's NVLink bandwidth if `gpu` is given; else required when `gpus` > 0",
     "per-GPU NVLink (or PCIe) bandwidth, one direction"},
    {"host", "`gpu_latency`", "time >= 0", "required when `gpus` > 0 (even with `gpu`); else 0",
     "latency of the intra-host GPU link, as the analytical fidelity's point-to-point transfers (send/recv, all-to-all, pipeline sends) add it; collectives at the packet and flow levels charge NCCL's per-hop latencies instead (`collectives.latencies`; NCCL's figures include the link), so there it changes nothing"},
    {"host", "`intra`", "choice: `nvswitch`, `pcie`", "`nvswitch`",
     "intra-host fabric; `pcie` also rules out NVLS"},
    {"host", "`gpu_to_nic`", "list of counts 0 to `nics`-1, one per GPU", "GPU g uses NIC floor(g x `nics` / `gpus`)",
     "the NIC each GPU sends through"},
    // links: nic_link, uplink, edge_agg, agg_core, local, global, link
    {"link", "`rate`", "rate > 0", "required",
     "line rate, one direction"},
    {"link", "`delay`", "time >= 1ps", "required",
     "propagation delay (zero would leave the parallel kernel no lookahead)"},
    // topology single
    {"single", "`hosts`", "count 1-1048576", "required",
     "hosts"},
    // topology fat_tree
    {"fat_tree", "`leaves`", "count 1-1048576", "required",
     "leaf switches"},
    {"fat_tree", "`hosts_per_leaf`", "count 1-1048576", "required",
     "hosts under each leaf"},
    {"fat_tree", "`spines`", "count 0-1048576", "`0`",
     "spine switches; `0` = one spine per uplink. Otherwise each leaf has uplinks / `spines` parallel links to every spine, and the uplink count must be a multiple of `spines`"},
    {"fat_tree", "`oversubscription`", "ratio in (0, 1024]", "`1`",
     "host-facing : spine-facing bandwidth per leaf (1 = non-blocking, 3 = 3:1). Uplinks per leaf = ceil(`hosts_per_leaf` x `nics` x nic rate / (`oversubscription` x uplink rate)), at least 1 and at most 65,536 (a slower uplink is refused)"},
    {"fat_tree", "`uplink`", "link", "required",
     "leaf to spine"},
    // topology fat_tree_3tier
    {"fat_tree_3tier", "`k`", "count 2-1048576, even", "required",
     "switch radix"},
    {"fat_tree_3tier", "`edge_agg`", "link", "required",
     "edge to aggregation"},
    {"fat_tree_3tier", "`agg_core`", "link", "required",
     "aggregation to core"},
    // topology rail_optimized
    {"rail_optimized", "`hosts`", "count 1-1048576", "required",
     "hosts"},
    {"rail_optimized", "`hosts_per_group`", "count 1-1048576", "required",
     "hosts per rail group (one leaf per rail per group)"},
    {"rail_optimized", "`spines`", "count 1-1048576", "required",
     "spine switches: rails meet only there"},
    {"rail_optimized", "`links_per_spine`", "count 1-1048576", "`1`",
     "parallel links between each leaf and each spine"},
    {"rail_optimized", "`uplink`", "link", "required",
     "leaf to spine"},
    // topology dragonfly
    {"dragonfly", "`groups`", "count 1-1048576", "required",
     "groups"},
    {"dragonfly", "`routers_per_group`", "count 1-1048576", "required",
     "routers per group"},
    {"dragonfly", "`hosts_per_router`", "count 1-1048576", "required",
     "hosts per router"},
    {"dragonfly", "`global_links_per_router`", "count 0-1048576", "required",
     "global ports per router"},
    {"dragonfly", "`local`", "link", "required",
     "router to router inside a group"},
    {"dragonfly", "`global`", "link", "required",
     "router to router between groups"},
    // topology torus, mesh
    {"torus", "`dims`", "list of 2 or 3 counts, each 1-1024", "required",
     "size of each dimension, e.g. `[4, 4]`"},
    {"torus", "`hosts_per_switch`", "count 1-1048576", "required",
     "hosts on each switch"},
    {"torus", "`link`", "link", "required",
     "switch to neighbouring switch"},
    // topology custom
    {"custom", "`switches`", "list of mappings", "empty",
     "the switches"},
    {"custom", "`switches[i].name`", "text", "required",
     "switch name"},
    {"custom", "`switches[i].tier`", "count 0-2", "`0`",
     "0 leaf / ToR, 1 spine / aggregation, 2 core"},
    {"custom", "`switches[i].group`", "count 0-1048576", "`0`",
     "pod / rail / group number"},
    {"custom", "`hosts`", "list of mappings, at least one", "required",
     "the hosts"},
    {"custom", "`hosts[i].name`", "text", "required",
     "host name; its NICs are `<name>.nic<i>`"},
    {"custom", "`hosts[i].nics`", "count 1-256", "`cluster.host.nics`",
     "NICs of this host"},
    {"custom", "`hosts[i].gpus`", "count 0-1024", "`cluster.host.gpus`",
     "GPUs of this host (needs `cluster.host.gpu_link` when > 0)"},
    {"custom", "`hosts[i].gpu_to_nic`", "list of counts 0 to `nics`-1", "`cluster.host.gpu_to_nic` if this host has the same `gpus` and `nics`, else GPU g uses NIC floor(g x `nics` / `gpus`)",
     "the NIC each GPU sends through"},
    {"custom", "`links`", "list of mappings", "empty",
     "the links"},
    {"custom", "`links[i].a`, `links[i].b`", "text", "required",
     "endpoints: a switch name or a NIC `<host>.nic<i>`; different"},
    {"custom", "`links[i].rate`", "rate > 0", "required",
     "line rate"},
    {"custom", "`links[i].delay`", "time >= 1ps", "required",
     "propagation delay"},
    // network
    {"network", "`cc`", "choice: `none`, `dcqcn`, `hpcc`, `dctcp`, `timely`", "`dcqcn`",
     "congestion control on every NIC; its parameters go in the sub-section of the same name (3.4.1); a sub-section of another algorithm is an error"},
    {"network", "`routing`", "choice: `ecmp`, `spray`, `adaptive`", "`ecmp`",
     "per-flow hash over equal-cost next hops; per packet at random; per packet to the next hop with the fewest queued bytes. `hpcc` requires `ecmp`"},
    {"network", "`mtu`", "size 1B-65536B", "`4096B` (RoCE path MTU, largest IB MTU)",
     "payload bytes per packet (82 B of headers are added on the wire)"},
    {"network", "`ack_every`", "count 1-1048576, or `message`", "`1` (HPCC-ns3 L2_ACK_INTERVAL)",
     "ACK every n-th in-order packet, and always the last packet of a message (a collective step) and of the flow; `message`: only those (an RC responder coalesces the rest: the requester needs the ACK of each message's last packet to complete it, IBTA RC). With congestion control that reads every ACK (HPCC, TIMELY, DCTCP) keep 1. A ConnectX queue pair asks for an ACK at least every 256 packets (Linux mlx5_ib sets log_ack_req_freq to 8), but how often its responder sends one is not published; 256 halves a collective's events and made validate's rings ~2% faster, further from the measurements (docs/network.md), so the default stays 1"},
    {"network", "`ack_class`", "choice: `control`, `data`", "`control` (HPCC-ns3 run.py and SimAI: ACK_HIGH_PRIO 1)",
     "the class ACKs and NACKs travel in. `control`: strictly above data, never paused. `data`: in the data queue, behind data, buffered and paused with it and counted in the queue lengths HPCC's telemetry reports, as HPCC-ns3's shipped config.txt (ACK_HIGH_PRIO 0) and as RC responses share their queue pair's class on InfiniBand and RoCE NICs; a NIC sends its queued ACKs before its next data packet. CNPs go strictly above data either way"},
    {"network", "`rto`", "time >= 1ps", "`67108864ns` = 4.096 us x 2^14, ~67 ms (IB local ACK timeout 14)",
     "retransmission timeout; must exceed every flow's unloaded round trip (a full packet out, an ACK back), or the run is refused before it starts"},
    {"network", "`retry_count`", "count 0-7", "`7` (IB Retry Count; NCCL_IB_RETRY_CNT)",
     "timeouts in a row without an acknowledged byte before the queue pair fails; the run stops with an error naming the flow"},
    {"network", "`nack_interval`", "time >= 0", "`500us` (HPCC-ns3)",
     "a receiver re-sends a NACK for the same gap only after this long"},
    {"network", "`out_of_order`", "bool", "`false`",
     "receivers place out-of-order packets (losses then recover by `rto`) instead of go-back-N; not supported with `collectives`"},
    {"network", "`buffer`", "size >= 1B, at least one full packet (`mtu` + 82 B)", "`32MB` (HPCC-ns3, SimAI BUFFER_SIZE)",
     "shared packet buffer per switch"},
    {"network", "`pfc`", "bool", "`true`",
     "lossless (PFC) or lossy (drop on overflow)"},
    {"network", "`pfc_xoff`", "size 0 to `buffer`", "`0B`",
     "static XOFF threshold per ingress port; `0B` keeps the dynamic one (`pfc_alpha`). Must exceed `pfc_resume_offset` + `mtu` + 82 B"},
    {"network", "`pfc_alpha`", "ratio in (0, 1024]", "`0.125` (HPCC-ns3 pfc_a_shift 3)",
     "dynamic XOFF: an ingress port pauses above alpha x free shared buffer"},
    {"network", "`pfc_alpha_by_rate`", "bool", "`true` (HPCC-ns3 third.cc: \"pfc alpha, proportional to link bw\")",
     "a port faster than the NICs gets `pfc_alpha` x 2 per doubling of its rate over the slowest NIC's, at most x 8 (a 400 Gbps uplink over 100 Gbps NICs: 1/2); `false`: `pfc_alpha` on every port"},
    {"network", "`pfc_resume_offset`", "size 0-4294967295B", "`3072B` (HPCC-ns3)",
     "XON when the port is this far below XOFF"},
    {"network", "`pfc_headroom_factor`", "ratio in [0, 1024]", "`3` (HPCC-ns3 third.cc)",
     "headroom per ingress port = factor x rate x link delay / 8 + two full packets; a switch's headroom must fit in `buffer`. A packet that finds the headroom full stops the run with an error: a lossless fabric never drops"},
    {"network", "`pfc_pause_quanta`", "count 1-65535", "`65535` (802.1Qbb maximum)",
     "PAUSE time in quanta of 512 bit times (335 us at 100 Gbps); a PAUSE lapses after it. At least 2: one quantum is shorter than the PAUSE frame that carries it"},
    {"network", "`pfc_refresh`", "time >= 0, below one PAUSE on every switch port", "`0us` = half a PAUSE",
     "while an ingress stays above XON its XOFF is re-sent this often"},
    {"network", "`egress_alpha`", "ratio in (0, 1024]", "`1` (common vendor default, unverified)",
     "lossy mode: an egress queue takes at most alpha x free buffer"},
    {"network", "`ecn`", "bool", "`true`",
     "RED/ECN marking on egress at dequeue"},
    {"network", "`ecn_kmin`", "size >= 0", "`0B` = 100 KB x port rate / 25 Gbps (HPCC-ns3 run.py)",
     "RED lower threshold; nonzero overrides the scaling"},
    {"network", "`ecn_kmax`", "size >= 0", "`0B` = 400 KB x port rate / 25 Gbps",
     "RED upper threshold; nonzero overrides the scaling. `ecn_kmin` <= `ecn_kmax` on every switch port, with the unset one scaled to the port's rate"},
    {"network", "`ecn_pmax`", "ratio in [0, 1]", "`0.2`",
     "marking probability at `ecn_kmax`"},
    {"network", "`dcqcn`, `hpcc`, `dctcp`, `timely`", "section", "defaults below",
     "parameters of the algorithm named by `cc`"},
    // network.dcqcn
    {"dcqcn", "`variant`", "choice: `connectx`, `paper`", "`connectx`",
     "the parameter set and rules below"},
    {"dcqcn", "`g`", "ratio in (0, 1]", "`0.0048828125` (5/1024, DCE_TCP_G 1019) / `0.00390625` (1/256)",
     "alpha EWMA gain"},
    {"dcqcn", "`alpha_init`", "ratio in [0, 1]", "`0.9990234375` (1023/1024) / `1`",
     "alpha at the first CNP"},
    {"dcqcn", "`alpha_period`", "time >= 1ps", "`1us` / `55us`",
     "alpha update period"},
    {"dcqcn", "`alpha_update`", "choice: `periodic`, `on_cnp`", "`periodic` / `on_cnp`",
     "every period, up by g if a CNP came in it (firmware); or at each CNP, decaying per silent period (paper)"},
    {"dcqcn", "`rate_reduce_period`", "time >= 0", "`4us` / `0us`",
     "CNPs latched and cut once per period from the first CNP; `0us` = cut at each CNP"},
    {"dcqcn", "`clamp`", "choice: `after_timer_increase`, `always`, `never`", "`after_timer_increase` / `always`",
     "when a cut also sets Rt = Rc"},
    {"dcqcn", "`min_dec_factor`", "ratio in [0, 1]", "`0.5` / `0`",
     "a cut leaves at least this fraction of the rate"},
    {"dcqcn", "`increase_period`", "time >= 1ps", "`300us` / `55us`",
     "T: rate-increase timer"},
    {"dcqcn", "`byte_counter`", "size >= 0", "`32767B` / `10MB`",
     "B: byte counter; `0B` = timer only (F stages of fast recovery, one additive step, then hyper)"},
    {"dcqcn", "`fast_recovery_steps`", "count 0-1024", "`1` / `5`",
     "F: fast-recovery stages"},
    {"dcqcn", "`rate_ai`", "rate", "`5Mbps` / `40Mbps`",
     "additive increase"},
    {"dcqcn", "`rate_hai`", "rate", "`50Mbps` / `200Mbps` (the DCQCN author's ns-3 sample configuration; the paper's value unverified)",
     "hyper increase"},
    {"dcqcn", "`hyper_step`", "choice: `fixed`, `by_stage`", "`fixed` / `by_stage`",
     "R_HAI per hyper event, or i x R_HAI with i the stages past F"},
    {"dcqcn", "`min_rate`", "rate", "`1Mbps` / `100Mbps`",
     "rate floor; at most every NIC's line rate"},
    {"dcqcn", "`cnp_interval`", "time >= 0", "`4us` / `50us`",
     "at most one CNP per flow per interval (receiver)"},
    // network.hpcc
    {"hpcc", "`eta`", "ratio in (0, 1]", "`0.95`",
     "target utilisation"},
    {"hpcc", "`max_stage`", "count 0-1024", "`5`",
     "additive-increase stages before a multiplicative update"},
    {"hpcc", "`w_ai_fraction`", "ratio in [0, 1)", "`0.0004`",
     "W_AI as a fraction of W_init = line rate x base RTT (HPCC-ns3 run.py)"},
    {"hpcc", "`min_rate`", "rate", "`100Mbps`",
     "window floor, as a rate; at most every NIC's line rate"},
    {"hpcc", "`base_rtt`", "choice: `per_flow`, `global`", "`per_flow` (SimAI GLOBAL_T 0)",
     "T: each flow's unloaded round trip, or the largest among the run's flows for all (HPCC-ns3 config.txt GLOBAL_T 1, which takes the largest over all host pairs)"},
    // network.dctcp
    {"dctcp", "`form`", "choice: `window`, `rate`", "`window`",
     "TCP's byte window paced at line rate, or RoCE's rate-based DCTCP (HPCC-ns3): the rate cut by alpha/2 on an ECN echo outside a reduction, raised by `rate_ai` per clean round trip"},
    {"dctcp", "`g`", "ratio in (0, 1]", "`0.0625` (1/16)",
     "alpha EWMA gain"},
    {"dctcp", "`alpha_init`", "ratio in [0, 1]", "`1`",
     "initial alpha (Linux tcp_dctcp.c)"},
    {"dctcp", "`rate_ai`", "rate", "`1Gbps` (HPCC-ns3 DCTCP_RATE_AI)",
     "`rate` form: additive increase per round trip"},
    {"dctcp", "`min_rate`", "rate", "`100Mbps` (HPCC-ns3 MinRate)",
     "`rate` form: floor; at most every NIC's line rate"},
    // network.timely
    {"timely", "`variant`", "choice: `hpcc_ns3`, `paper`", "`hpcc_ns3`",
     "`hpcc_ns3`: the reference RDMA model's TIMELY (HPCC-ns3 UpdateRateTimely) with the settings of its authors' experiments (run.py); `paper`: Algorithm 1 with the paper's parameters. The defaults below are `hpcc_ns3`'s, `paper`'s in brackets"},
    {"timely", "`t_low`", "time >= 1ps", "`50us`",
     "below it the rate increases"},
    {"timely", "`t_high`", "time >= 1ps, above `t_low`", "`500us`",
     "above it the rate decreases"},
    {"timely", "`min_rtt`", "time >= 1ps", "`20us`",
     "normalises the RTT gradient"},
    {"timely", "`delta`", "rate", "1/1000 of the NIC's line rate (run.py RATE_AI = 10 x bw/10 Mb/s; the paper's 10 Mb/s at its 10 Gb/s NICs, scaled) [`10Mbps`]",
     "additive increase step"},
    {"timely", "`beta`", "ratio in (0, 1]", "`0.8`",
     "multiplicative decrease factor"},
    {"timely", "`ewma_alpha`", "ratio in (0, 1]", "`0.875`",
     "weight of the newest RTT difference"},
    {"timely", "`hai`", "choice: `any_increase`, `gradient`", "`any_increase` [`gradient`]",
     "what leads to hyper-active increase. `any_increase` (HPCC-ns3): `hai_after` increases in a row, below `t_low` or on a falling RTT, and then every increase is `hai_factor` x `delta`; `gradient` (paper): `hai_after` completions in a row with a falling RTT, and only the gradient branch speeds up (below `t_low` the step stays `delta`)"},
    {"timely", "`hai_after`", "count 0-1048576", "`5`",
     "updates in a row before hyper-active increase"},
    {"timely", "`hai_factor`", "count 1-1048576", "`5` (run.py RATE_HAI = 5 x RATE_AI)",
     "HAI step = factor x `delta`"},
    {"timely", "`update`", "choice: `per_rtt`, `per_segment`", "`per_rtt` (HPCC-ns3) [`per_segment`]",
     "one rate update per round trip, or per `segment_bytes` acknowledged (the paper's completion events)"},
    {"timely", "`segment_bytes`", "size >= 0", "`64KB`",
     "`per_segment`: one rate update per this many acknowledged bytes; `0B` = every ACK"},
    {"timely", "`min_rate`", "rate", "`1Gbps` (run.py MIN_RATE) [`100Mbps`, HPCC-ns3 MinRate; the paper names none]",
     "rate floor; at most every NIC's line rate"},
    // workload.flows
    {"flows_pattern", "`pattern`", "choice: `incast`, `permutation`, `all_to_all`, `list`, `poisson`", "required",
     "how flows are made; decides the other keys allowed"},
    // workload.flows, by pattern
    {"flows", "`size`", "size >= 1B", "required",
     "bytes per flow (`incast`, `permutation`, `all_to_all`)"},
    {"flows", "`start`", "time >= 0", "`0us`",
     "when every flow starts"},
    {"flows", "`receiver`", "count, a NIC index", "required (`incast`)",
     "the receiving NIC"},
    {"flows", "`senders`", "count, 1 to NICs-1", "required (`incast`)",
     "how many NICs send"},
    {"flows", "`list`", "list of mappings, at least one", "required (`list`)",
     "one mapping per flow"},
    {"flows", "`list[i].src`", "count, a NIC index", "required",
     "sending NIC"},
    {"flows", "`list[i].dst`", "count, a NIC index other than `src`", "required",
     "receiving NIC"},
    {"flows", "`list[i].size`", "size >= 1B", "required",
     "bytes"},
    {"flows", "`list[i].start`", "time >= 0", "`0us`",
     "start time"},
    {"flows", "`load`", "ratio in (0, 1]", "required (`poisson`)",
     "offered load per NIC, a fraction of its line rate"},
    {"flows", "`sizes`", "text", "required (`poisson`)",
     "flow-size CDF: `websearch` (DCTCP paper), `fb_hadoop` (Roy et al., SIGCOMM'15) from `scenarios/workloads/flow_sizes/`, or a CSV file of `bytes,cumulative_percent` rows (relative to the scenario; `#` lines are comments)"},
    {"flows", "`duration`", "time >= 1ps", "required (`poisson`)",
     "how long flows keep arriving (at most 67,108,864 flows expected)"},
    {"flows", "`incasts`", "mapping", "none",
     "`poisson`: incast events at Poisson times offering `incasts.load` x the sum of the NICs' line rates, each from `incasts.senders` distinct NICs to one, all drawn uniformly, every sender sending `incasts.size` (the HPCC paper's Figure 11a: 60 senders, 500KB, 0.02). Their flows are marked `incast` in `flows.csv`, left out of the FCT slowdowns, and counted apart in `ports.csv` (`data_bytes_background`, `data_bytes_incast`)"},
    {"flows", "`incasts.senders`", "count, 1 to NICs-1", "required",
     "senders per event"},
    {"flows", "`incasts.size`", "size >= 1B", "required",
     "bytes per sender"},
    {"flows", "`incasts.load`", "ratio in (0, 1]", "required",
     "offered load of the events, a fraction of the network's NIC capacity"},
    // collectives
    {"collectives", "`op`", "choice: `allreduce`, `allgather`, `reducescatter`, `broadcast`, `reduce`, `alltoall`, `sendrecv`", "`allreduce`",
     "the collective"},
    {"collectives", "`algo`", "choice: `auto`, `ring`, `tree`, `nvls`, `nvlstree`, `collnetchain`, `collnetdirect`, `pat`, `p2p`", "`auto`",
     "algorithm (NCCL_ALGO); `auto`: NCCL's tuning model picks; `nvls` on more than one host is NVLS inside the hosts and the reduction across them in the switches (NCCL_ALGO=NVLS with CollNet): it needs `collnet`; `nvlstree` (NVLS inside hosts, a tree between them) needs NVLS hardware, 2+ hosts with equal GPU counts, all-reduce; `collnetchain` (a chain inside hosts, the reduction across hosts in the switches) and `collnetdirect` (every GPU sends each NIC head its part, the heads reduce across hosts in the switches; NVSwitch hosts) need `collnet`, 2+ hosts with equal GPU counts (at most 8), all-reduce; `pat` (binomial trees over peer distances 2^d, log2(n) network hops) runs all-gather and reduce-scatter with one GPU per host, NCCL 2.23+"},
    {"collectives", "`proto`", "choice: `auto`, `ll`, `ll128`, `simple`", "`auto`",
     "protocol (NCCL_PROTO)"},
    {"collectives", "`channels`", "count 0-64, <= `max_channels`", "`0`",
     "channels per collective; `0`: the tuning model decides"},
    {"collectives", "`groups`", "choice: `world`, `rail`", "`world`",
     "`world`: one collective over every GPU. `rail`: one collective per local GPU index, all at once, each over the GPUs with that index on every host (needs the same GPU count on every host; NVLS and CollNet plans, with their switch agents, cannot be combined this way)"},
    {"collectives", "`max_channels`", "count 1-64", "inside a host: NCCL's search rings doubled by connect, 24 on A100, H100 and H200, 32 on B200 and GB200 (16 on V100, unverified); across hosts: NCCL's network graph rules from the NICs (docs/collectives.md)",
     "channels the kernels run inside a host; divides the per-channel bandwidths. Set, it also fixes the count across hosts"},
    {"collectives", "`root`", "count 0 to ranks-1", "`0`",
     "root of `broadcast` / `reduce`; sender of `sendrecv` with `peer`. Ranks: all GPUs, or the hosts with `groups: rail`"},
    {"collectives", "`peer`", "count 0 to ranks-1", "none: every rank sends to the next",
     "`sendrecv`: one send from `root` to this rank (must differ from `root`); unset, nccl-tests' `sendrecv_perf`: every rank sends to the next and receives from the previous at once"},
    {"collectives", "`min_bytes`", "size 1B-1TiB", "`8B`",
     "first size"},
    {"collectives", "`max_bytes`", "size 1B-1TiB, >= `min_bytes`", "`128MiB`",
     "last size"},
    {"collectives", "`step_factor`", "count 1-1024", "`2`",
     "each size is the previous x this; `1`: the previous + `step_bytes` (nccl-tests `-f`)"},
    {"collectives", "`step_bytes`", "size 1B-1TiB; with `step_factor: 1` only", "`1MiB` (nccl-tests' default `-i`)",
     "with `step_factor: 1`, each size is the previous + this (nccl-tests `-i`; a linear sweep of at most 10,000 sizes)"},
    {"collectives", "`gpus_per_thread`", "count 1 to the GPUs of a host, dividing each host's", "`1`",
     "GPUs one thread drives (nccl-tests `-g`): it enqueues each iteration's call on them in turn, and the iterations run back to back, so a size takes at least this x `launch_cost` (`1`: a process per GPU, `mpirun -np <ranks> ... -g 1`)"},
    {"collectives", "`launch_cost`", "time >= 0", "`4.2us` (nccl-tests#123: DGX A100, one thread driving 4-8 GPUs, 8-128 B ring all-reduce on one channel takes 4.2 us per GPU)",
     "the host's cost of one GPU's call, NCCL's enqueue and the kernel launch: with `gpus_per_thread`, the floor of a size's time"},
    {"collectives", "`dtype`", "choice: `float`, `int8`, `uint8`, `int32`, `uint32`, `int64`, `uint64`, `half`, `double`, `bfloat16`, `f8e4m3`, `f8e5m2`", "`float`",
     "element type (nccl-tests names; 1, 2, 4 or 8 bytes)"},
    {"collectives", "`redop`", "choice: `sum`, `prod`, `min`, `max`, `avg`", "`sum`",
     "the reduction's operator (nccl-tests `-o`), shown in the table's redop column; reduction compute is not modelled; `avg` keeps NCCL's PAT off reduce-scatter (enqueue.cc), as NCCL does"},
    {"collectives", "`nvls`", "choice: `auto`, `on`, `off`", "`auto`",
     "NVLink SHARP available to the plan; `auto`: when the GPU has it (H100, H200, B200, GB200) and `intra: nvswitch`; `on` elsewhere is an error"},
    {"collectives", "`collnet`", "bool", "`false` (NCCL_COLLNET_ENABLE is off unless set)",
     "NCCL_COLLNET_ENABLE=1: NCCL may reduce across hosts in the switches (CollNet with the SHARP plugin). Needs `cluster.sharp`. With it `auto` weighs CollNetChain, CollNetDirect (NVSwitch hosts) and, on NVLS hardware, NVLS across hosts too (`docs/collectives.md`, \"CollNet\")"},
    {"collectives", "`nvlink_efficiency`", "ratio in (0, 1]", "by GPU arch (table in 3.3.1): NCCL's usable NVLink per link over its line rate",
     "usable share of `gpu_link`"},
    {"collectives", "`nccl_version`", "text `2.Y` (its latest release) or `2.Y.Z` (a `-1` or `+cuda..` suffix is ignored), at most 2.30.7", "`2.30.7`",
     "the NCCL release the run models: its tuning constants (base and per-hop latencies, LL and per-channel bandwidth caps, and the model rules that changed with them, 2.17.1 to 2.30.7; `collectives/tuner_constants.hpp`), which the tuner picks with (and the analytical fidelity times with; a step's cost in packet and flow runs stays 2.30.7's calibration); its channel rules (2.18-2.19 doubled once more); PAT from 2.23; NVLS channels and chunks; LL128 between GH200/GB200 hosts (`nic_path: c2c`) from 2.27. Older releases take 2.17.1's constants. One node's ring and NVLS graphs follow the release's speed arrays and NVLS formula; NVLSTree's bandwidth formula stays 2.28's (the NVLS graph across hosts is not modelled)"},
    {"collectives", "`buffsize`", "size 64KiB-1GiB", "`4MiB` (NCCL's DEFAULT_BUFFSIZE)",
     "NCCL_BUFFSIZE: Simple's buffer per connection. A step carries an eighth of it (NCCL_STEPS), a ring chunk four steps, a slice two; LL and LL128 keep theirs"},
    {"collectives", "`nvls_efficiency`", "ratio in (0, 1]", "`0.85`, Blackwell `0.74` (NCCL nvlsEfficiency)",
     "NVLS share of NVLink capacity"},
    {"collectives", "`latencies`", "bool", "`true`",
     "charge NCCL's tuning-model latencies (base once, hardware latency per ring/tree send, NVLS once)"},
    {"collectives", "`step_latency`", "time >= 0", "none (NCCL's latencies, per `latencies`)",
     "when given, every send pays this fixed latency instead and there is no base latency, whatever `latencies` says, and a Simple send to another host does not wait for the GPU to write it (SimAI's fixed per-step send latency, for like-for-like comparisons)"},
    {"collectives", "`step_latency_per`", "choice: `slice`, `ring_step`", "`slice`",
     "with `step_latency`: `slice` charges it on every send (NCCL moves a ring step as 2-4 slices); `ring_step` once per ring step, on its first slice, as SimAI does; without `step_latency` it is an error"},
    {"collectives", "`nics`", "choice: `rail`, `own`", "`rail`",
     "NIC of a hop between hosts: `rail`, the channel's rail at both ends (NCCL: a ring stays on one rail of a rail-optimized fabric); `own`, each GPU's own NIC, so a ring changes rail at every host and crosses the spines (SimAI's rings)"},
    {"collectives", "`host_delay`", "time >= 1ps", "`500ns` (half of NCCL's 1 us per-step network overhead)",
     "GPU proxy to NIC, each way"},
    // training
    {"training", "`model`", "name, file, or mapping", "required",
     "a model of `workload/models/` by name (`gpt3-175b`, `llama3-405b`, `mixtral-8x7b`, ...), a `.yaml` file (relative to the scenario), or the model's keys inline (below)"},
    {"training", "`tp`", "count 1-65536", "`1`",
     "tensor-parallel size; divides the heads, `ffn_hidden` and the vocabulary"},
    {"training", "`pp`", "count 1-65536", "`1`",
     "pipeline stages; `pp x virtual_stages` divides the layers"},
    {"training", "`dp`", "count 1-1048576", "GPUs / (tp x pp)",
     "data-parallel size"},
    {"training", "`ep`", "count 1-65536, divides `dp` and the experts", "`1`",
     "expert parallelism (MoE models only)"},
    {"training", "`sequence_parallel`", "bool", "`false`",
     "Megatron's sequence parallelism (all-gather / reduce-scatter instead of all-reduce); needs `tp > 1`"},
    {"training", "`schedule`", "choice: `1f1b`, `gpipe`, `interleaved`", "`1f1b`",
     "pipeline schedule; `interleaved` needs `pp` > 1, as Megatron-LM does"},
    {"training", "`virtual_stages`", "count 1-1024", "`2` with `interleaved`, else `1`",
     "model chunks per pipeline rank (interleaved only); micro-batches per replica must divide by `pp`"},
    {"training", "`micro_batch`", "count 1-1048576", "`1`",
     "sequences per micro-batch"},
    {"training", "`global_batch`", "count 1-1073741824, a multiple of `micro_batch x dp`", "required",
     "sequences per iteration"},
    {"training", "`recompute`", "choice: `none`, `selective`, `full`", "`none`",
     "activation recomputation (Korthikanti et al. 2022)"},
    {"training", "`zero`", "count 0-3", "`0`",
     "0: gradient all-reduce; 1: optimizer state sharded (reduce-scatter + parameter all-gather); 2: gradients sharded too; 3: parameters sharded (gathered per layer)"},
    {"training", "`attention`", "choice: `flash`, `unfused`", "`flash`",
     "fused attention (one kernel, no s x s tensors kept) or Megatron's unfused Q K^T, softmax, dropout, P V"},
    {"training", "`memory_kernels`", "choice: `tuned`, `compiled`", "`tuned` (QuACK's hand-tuned kernels, 3.01 TB/s on H100)",
     "how the memory-bound kernels (norms, softmax, dropout, element-wise, optimizer) are written: `tuned` to the memory's speed of light; `compiled` by a compiler (TorchScript, torch.compile, Triton), at 1.89 / 3.01 of that bandwidth (torch.compile's softmax on the same H100; shared/reference/e2e/memory_bound_kernels_measured.csv)"},
    {"training", "`dtype`", "choice: `bf16`, `fp16`", "`bf16`",
     "compute type of weights and activations"},
    {"training", "`grad_dtype`", "choice: `fp32`, `bf16`, `fp16`", "`fp32`",
     "type of gradient reductions (Megatron accumulates in FP32 by default)"},
    {"training", "`bucket_params`", "count 0-1099511627776", "`0`",
     "parameters per gradient bucket; `0`: Megatron-Core's default, max(40M, 1M x dp)"},
    {"training", "`overlap_grad_reduce`", "bool", "`true`",
     "reduce each bucket as soon as its gradients exist, overlapped with the backward"},
    {"training", "`kernels`", "path", "`compute/data/kernels.csv`",
     "the kernel-timing database (columns in `compute/kernel_db.hpp`)"},
    {"training", "`network`", "choice: `packet`, `isolated`", "`packet`",
     "`packet`: every rank of every replica runs in one network simulation (at `simulation.fidelity`: packet or flow level), and communications contend on the shared fabric. `isolated`: each distinct communication is run alone and its time replayed; one replica; much faster, no contention (`docs/training.md` §1.4). Also with `import`"},
    {"training", "`jobs`", "list of jobs (below)", "none",
     "several jobs sharing the cluster, each on the hosts it lists; the section's own job keys (`model` to `overlap_grad_reduce`) are every job's defaults. Needs `network: packet`; not with `import`"},
    {"training", "`stragglers`", "list of `{host, gpu, factor}`", "none",
     "GPUs whose kernels take `factor` (0.1-100) times as long: `host` by index (cluster order), `gpu` its local index (omitted: every GPU of the host). The replicas then differ, so `isolated` runs them all too. Also with `import`"},
    {"training", "`stragglers[i].host`", "count 0 to hosts-1", "required",
     "the straggler's host, by index in cluster order"},
    {"training", "`stragglers[i].gpu`", "count 0 to the host's GPUs-1", "every GPU of the host",
     "the straggler's GPU on that host"},
    {"training", "`stragglers[i].factor`", "ratio in [0.1, 100]", "required",
     "how many times as long its kernels take"},
    {"training", "`import`", "path, relative to the scenario", "none",
     "a workload to run instead of a model: an AICB file, or with `format: chakra` the traces' prefix (rank r's file is `<prefix>.<r>.et`, one per GPU; `<prefix>.<r>.json` with `format: chakra_json`); then only `format`, `comm_groups`, `issue_order`, `network`, `stragglers` and the collective-model keys below are allowed (\"Imported workloads\" below)"},
    {"training", "`format`", "choice: `aicb`, `chakra`, `chakra_json`", "`aicb`",
     "the format of `import`: SimAI's AICB workload text (`workload/aicb_import.hpp`), MLCommons Chakra execution traces, ASTRA-sim's input (`chakra`: the binary protobuf form; `chakra_json`: the JSON form Chakra's jsonizer writes; `workload/chakra_import.hpp`)"},
    {"training", "`comm_groups`", "path, relative to the scenario", "none",
     "with `format: chakra` or `chakra_json`: ASTRA-sim's communicator file, `{\"name\": [ranks], ...}`, naming the process groups of the traces' `pg_name` attributes (metadata nodes may name them too)"},
    {"training", "`issue_order`", "choice: `ready`, `id`", "`ready`",
     "with `format: chakra` or `chakra_json`: what a rank's free CPU, compute or communication stream runs next: `ready`, the lowest-id node whose dependencies are done (ASTRA-sim's rule); `id`, the next node in id order, waiting for it if it is not ready (a CUDA stream's rule: kernels run in the order they were issued)"},
    {"training", "`max_channels`, `nvls`, `collnet`, `nvlink_efficiency`, `nvls_efficiency`, `latencies`, `step_latency`, `step_latency_per`, `nics`, `host_delay`, `nccl_version`, `buffsize`", "as in `collectives`", "as there",
     "how the training's collectives are planned and run"},
    // training.model
    {"model", "`name`", "text", "`model` (inline) or the file's name",
     "the model's name in the output"},
    {"model", "`layers`", "count 1-100000", "required",
     "transformer layers"},
    {"model", "`hidden`", "count 1-1048576", "required",
     "hidden size"},
    {"model", "`ffn_hidden`", "count 1-4194304", "4 x `hidden`",
     "MLP hidden size (per expert for MoE)"},
    {"model", "`heads`", "count 1-16384, divides `hidden`", "required",
     "attention heads"},
    {"model", "`kv_heads`", "count 1-16384, divides `heads`", "as `heads`",
     "key/value heads (fewer than `heads`: grouped-query attention)"},
    {"model", "`seq_len`", "count 1-16777216", "required",
     "sequence length"},
    {"model", "`vocab`", "count 1-16777216", "required",
     "vocabulary size"},
    {"model", "`experts`", "count 1-65536", "`1`",
     "experts per MoE layer (`1`: a dense model)"},
    {"model", "`top_k`", "count 1-65536, at most `experts`", "`1`",
     "experts each token is routed to"},
    {"model", "`swiglu`", "bool", "`false`",
     "a SwiGLU MLP (three weight matrices) instead of GeLU (two)"},
    {"model", "`causal`", "bool", "`true`",
     "causal attention mask: the attention kernels do half the work (`compute/kernel.cpp`)"},
    {"model", "`position_embedding`", "choice: `learned`, `rope`, `none`", "`learned`",
     "Megatron's --position-embedding-type: `learned` adds a seq_len x hidden table (GPT), whole on every tensor-parallel rank; `rope` (Llama, Qwen, Mixtral) and `none` have no weights"},
    {"model", "`source`", "text", "none",
     "where the figures come from (kept with the model, not used)"},
    // training.jobs[i]
    {"jobs", "`name`", "text, unique: 1-64 letters, digits, `_`, `-`, `.` (not first)", "`job<i>`",
     "the job's name in the output (`== job NAME`, `trace_NAME.json`, results.json's `jobs`)"},
    {"jobs", "`hosts`", "list of host indices (cluster order)", "required",
     "the hosts whose GPUs the job takes, all of them; a host belongs to one job at most. The job's rank r is GPU r mod G of its (r div G)-th listed host (G GPUs per host), so `tp` stays inside a host"},
    {"jobs", "`start`", "time >= 0", "`0us`",
     "when the job's ranks begin; its times are counted from here"},
    {"jobs", "`model` ... `overlap_grad_reduce`", "as above", "the section's value",
     "the job's own model and parallelism; `dp` fills the job's GPUs unless given"},
    // sweep
    {"sweep", "`<key.path>`", "non-empty list of scalars", "",
     "an axis: one point per value"},
    {"sweep", "`zip`", "mapping of `<key.path>`: list, all lists of equal length, at most one `zip`", "",
     "one axis whose lists advance together"},
};
// clang-format on

}  // namespace

namespace {

// The link blocks of `cluster` ("{link}" in a table's prefix).
constexpr std::array<std::string_view, 7> kLinks{"nic_link", "uplink", "edge_agg", "agg_core",
                                                 "local",    "global", "link"};

const KeyTable* table_of(std::string_view id) {
  for (const KeyTable& t : kTables) {
    if (t.id == id) return &t;
  }
  return nullptr;
}

// The paths a table's prefix stands for.
std::vector<std::string> prefixes(const KeyTable& t) {
  const std::string p(t.prefix);
  const auto at = p.find("{link}");
  if (at == std::string::npos) return {p};
  std::vector<std::string> out;
  for (const std::string_view l : kLinks) {
    out.push_back(p.substr(0, at) + std::string(l) + p.substr(at + 6));
  }
  return out;
}

const KeyInfo* row_in(std::string_view table, std::string_view name) {
  for (const KeyInfo& r : kRows) {
    if (r.table != table) continue;
    for (const std::string& n : key_names(r)) {
      if (n == name) return &r;
    }
  }
  return nullptr;
}

bool starts_at_boundary(std::string_view text, std::string_view prefix) {
  return text.starts_with(prefix) &&
         (text.size() == prefix.size() || text[prefix.size()] == '.' || text[prefix.size()] == '[');
}

}  // namespace

KeyDomain key_domain(std::string_view type) {
  using Kind = KeyDomain::Kind;
  KeyDomain d;
  if (type == "bool") {
    d.kind = Kind::kBool;
    return d;
  }
  if (type == "rate" || type == "rate > 0") {  // a rate is always above zero
    d.kind = Kind::kRate;
    return d;
  }
  if (type.starts_with("choice: ")) {
    d.kind = Kind::kChoice;
    d.options = backticked(type);
    d.bounded = !d.options.empty();
    return d;
  }
  const auto take = [&](std::string_view word) {
    if (!type.starts_with(word)) return false;
    type.remove_prefix(word.size());
    return true;
  };
  if (take("ratio in ")) {
    d.kind = Kind::kRatio;
    const auto comma = type.find(", ");
    if (type.size() < 6 || comma == std::string_view::npos) return d;
    const char open = type.front();
    const auto close = type.find_first_of(")]", comma);
    if ((open != '(' && open != '[') || close == std::string_view::npos) return d;
    const std::string lo(type.substr(1, comma - 1));
    const std::string hi(type.substr(comma + 2, close - comma - 2));
    try {
      d.lo_real = std::stod(lo);
      d.hi_real = std::stod(hi);
    } catch (const std::exception&) {
      return d;
    }
    d.lo_open = open == '(';
    d.hi_open = type[close] == ')';
    d.bounded = true;
    return d;
  }
  if (take("count")) {
    d.kind = Kind::kCount;
  } else if (take("size")) {
    d.kind = Kind::kSize;
  } else if (take("time")) {
    d.kind = Kind::kTime;
  } else {
    return d;
  }
  // A whole number, a size or a time; "0" needs no unit.
  const auto value = [&](std::string_view text, std::uint64_t& out) {
    if (text == "2^64-1") {
      out = std::numeric_limits<std::uint64_t>::max();
      return true;
    }
    if (text == "0") {
      out = 0;
      return true;
    }
    try {
      if (d.kind == Kind::kSize) {
        out = parse_bytes(text);
      } else if (d.kind == Kind::kTime) {
        out = static_cast<std::uint64_t>(parse_time(text));
      } else {
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
        return ec == std::errc() && end == text.data() + text.size();
      }
    } catch (const std::invalid_argument&) {
      return false;
    }
    return true;
  };
  if (!take(" ")) return d;
  const std::string_view spec = type.substr(0, type.find_first_of(",;"));
  d.hi = d.kind == Kind::kTime ? static_cast<std::uint64_t>(core::kTimeMax)
                               : std::numeric_limits<std::uint64_t>::max();
  if (spec.starts_with(">= ")) {
    d.bounded = value(spec.substr(3), d.lo);
    return d;
  }
  const auto dash = spec.find('-');
  if (dash == std::string_view::npos) return d;
  d.bounded = value(spec.substr(0, dash), d.lo) && value(spec.substr(dash + 1), d.hi);
  return d;
}

std::span<const KeyTable> key_tables() {
  return kTables;
}

std::span<const KeyInfo> key_rows() {
  return kRows;
}

std::vector<std::string> backticked(std::string_view text) {
  std::vector<std::string> out;
  for (auto open = text.find('`'); open != std::string_view::npos; open = text.find('`')) {
    const auto close = text.find('`', open + 1);
    if (close == std::string_view::npos) break;
    out.emplace_back(text.substr(open + 1, close - open - 1));
    text = text.substr(close + 1);
  }
  return out;
}

std::vector<std::string> key_names(const KeyInfo& row) {
  return backticked(row.key);
}

std::vector<std::string> key_paths(const KeyInfo& row) {
  std::vector<std::string> out;
  for (const std::string& pre : prefixes(*table_of(row.table))) {
    for (const std::string& n : key_names(row)) out.push_back(pre + "." + n);
  }
  return out;
}

std::string generic_path(std::string_view path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    const auto close = path[i] == '[' ? path.find(']', i) : std::string_view::npos;
    const bool index =
        close != std::string_view::npos && close > i + 1 &&
        path.substr(i + 1, close - i - 1).find_first_not_of("0123456789") == std::string_view::npos;
    if (!index) {
      out += path[i];
      continue;
    }
    out += "[i]";
    i = close;
  }
  return out;
}

const KeyInfo* find_key(std::string_view path, std::string_view prefer) {
  const std::string p = generic_path(path);
  const KeyInfo* found = nullptr;
  std::size_t best = 0;  // the longest prefix wins: cluster.host.gpus is `host`'s, not `cluster`'s
  for (const KeyTable& t : kTables) {
    for (const std::string& pre : prefixes(t)) {
      if (!p.starts_with(pre + ".")) continue;
      const std::string rest = p.substr(pre.size() + 1);
      const KeyInfo* r = row_in(t.id, rest);
      if (!r && !t.fallback.empty()) r = row_in(t.fallback, rest);
      // An item of a list whose row documents its items' keys itself (failed_links[i].at).
      const auto item = rest.find("[i].");
      if (!r && item != std::string::npos) r = row_in(t.id, rest.substr(0, item));
      if (!r) continue;
      if (pre.size() > best || (pre.size() == best && t.id == prefer)) {
        found = r;
        best = pre.size();
      }
    }
  }
  return found;
}

std::vector<const KeyInfo*> rows_under(std::string_view prefix) {
  std::vector<const KeyInfo*> out;
  for (const KeyInfo& r : kRows) {
    const KeyTable& t = *table_of(r.table);
    bool match = prefix.empty() || t.id == prefix || t.title == prefix ||
                 starts_at_boundary(t.prefix, prefix);
    for (const std::string& path : key_paths(r)) match = match || starts_at_boundary(path, prefix);
    if (match) out.push_back(&r);
  }
  return out;
}

std::string gpu_table() {
  const auto ratio = [](double v) {
    std::string t = fmt::format("{:.3f}", v);
    while (t.back() == '0') t.pop_back();
    if (t.back() == '.') t.pop_back();
    return t;
  };
  std::string out =
      "| `gpu` (canonical name, aliases) | arch | BF16 TFLOP/s (dense) | HBM | `gpu_link` default "
      "| "
      "NVLS | `nvlink_efficiency` | `max_channels` | `nvls_efficiency` |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const compute::GpuSpec& g : compute::gpu_catalog()) {
    std::string names = "`" + std::string(g.name) + "`";
    for (const std::string_view a : g.aliases) names += ", `" + std::string(a) + "`";
    static constexpr const char* kArch[] = {"Volta", "Ampere", "Hopper", "Blackwell"};
    out += fmt::format("| {} | {} | {} | {} GB, {} TB/s | `{}GBps` | {} | {} | {} | {} |\n", names,
                       kArch[static_cast<int>(g.arch)], ratio(g.bf16_tflops), ratio(g.hbm_gb),
                       ratio(g.hbm_tbps), ratio(g.nvlink_gbps), g.nvls ? "yes" : "no",
                       ratio(compute::nvlink_efficiency(g.arch)), default_max_channels(g.arch),
                       ratio(collectives::nvls_efficiency(arch_of(g.arch))));
  }
  return out;
}

std::string markdown_table(std::string_view id) {
  if (id == "gpus") return gpu_table();
  if (!table_of(id)) throw std::invalid_argument("no key table '" + std::string(id) + "'");
  bool defaults = false;
  for (const KeyInfo& r : kRows) defaults = defaults || (r.table == id && !r.def.empty());
  std::ostringstream out;
  const KeyTable& t = *table_of(id);
  if (defaults) {
    out << "| key | type / unit | " << (t.default_heading.empty() ? "default" : t.default_heading)
        << " | meaning |\n|---|---|---|---|\n";
  } else {
    out << "| key | type | meaning |\n|---|---|---|\n";
  }
  const auto cell = [&](std::string_view text) {
    if (!text.empty()) out << ' ' << text;
    out << " |";
  };
  for (const KeyInfo& r : kRows) {
    if (r.table != id) continue;
    out << '|';
    cell(r.key);
    cell(r.type);
    if (defaults) cell(r.def);
    cell(r.meaning);
    out << '\n';
  }
  return out.str();
}

std::string regenerate_key_tables(const std::string& doc) {
  static constexpr std::string_view kOpen = "<!-- keys: ", kClose = "<!-- /keys -->";
  std::istringstream in(doc);
  std::ostringstream out;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    out << line << '\n';
    if (!line.starts_with(kOpen) || !line.ends_with(" -->")) continue;
    const std::string id = line.substr(kOpen.size(), line.size() - kOpen.size() - 4);
    const int opened = n;
    bool closed = false;
    while (std::getline(in, line)) {
      ++n;
      if (line == kClose) {
        closed = true;
        break;
      }
    }
    if (!closed) {
      throw std::invalid_argument("line " + std::to_string(opened) + ": the key table '" + id +
                                  "' has no '<!-- /keys -->' line");
    }
    out << markdown_table(id) << kClose << '\n';
  }
  std::string text = out.str();
  if (!doc.ends_with('\n') && text.ends_with('\n')) text.pop_back();
  return text;
}

}  // namespace fabricsim::tools
