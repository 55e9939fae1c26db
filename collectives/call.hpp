#pragma once
// What a caller asks for: one collective on a group of ranks, and where those ranks sit (host,
// local GPU, NIC rail) so that rings and trees can follow the hardware as NCCL's do.
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace fabricsim::collectives {

enum class Op { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv };
// Auto lets the tuning model (tuning.hpp) decide, as NCCL does when NCCL_ALGO is unset.
// NvlsTree: NVLS inside hosts and a tree between them (multi-node Hopper+). CollNetChain: a
// chain inside hosts whose head reduces across hosts in the network's switches (InfiniBand
// SHARP); CollNetDirect: every GPU sends each NIC head its part over NVLink, the heads reduce
// across hosts in the switches. Pat: NCCL's Parallel Aggregated Trees for all-gather and
// reduce-scatter with one GPU per node (binomial trees over distances 2^d, NCCL 2.23+). P2P:
// grouped send/recv (all-to-all).
enum class Algo { Auto, Ring, Tree, Nvls, NvlsTree, CollNetChain, CollNetDirect, Pat, P2P };
enum class Proto { Auto, LL, LL128, Simple };
enum class Arch { Volta, Ampere, Hopper, Blackwell };
enum class IntraLink { NVLink, PCI };
// The host CPU as NCCL's topology detection reports it (src/graph/topo.h NCCL_TOPO_CPU_*): its
// tuning takes the multi-node LL bandwidth cap and the per-step network overhead from it.
enum class Cpu { Intel, Amd, Arm };
// Where a GPU's NIC sits, as NCCL's topology paths name the GPU-to-NIC route (src/graph/topo.h
// PATH_*): behind the same or nested PCIe switches (PIX / PXB, the HGX norm), through the CPU's
// PCIe host bridge (PHB), or through the CPU that a Grace Hopper / Grace Blackwell GPU reaches
// over NVLink-C2C (PHB in NCCL before 2.27, P2C from 2.27).
enum class NicPath { PcieSwitch, Cpu, C2c };
// The transport NCCL runs between hosts (collectives/transport.hpp has each one's facts): its
// own IB verbs transport (InfiniBand, RoCE), or AWS EFA through aws-ofi-nccl by platform class
// (p4d/p4de, p5/p5e, p5en/p6-b200).
enum class Transport { Ib, EfaP4d, EfaP5, EfaP5en };
// NCCL's version as its NCCL_VERSION_CODE encodes it: major x 10000 + minor x 100 + patch.
inline constexpr int kNcclVersionModelled = 23007;  // 2.30.7, the tuning ported here
// NCCL_BUFFSIZE's default: Simple's buffer per connection (src/init.cc DEFAULT_BUFFSIZE).
inline constexpr std::uint64_t kDefaultBuffsize = 1ull << 22;

std::string_view name(Op op);
std::string_view name(Algo algo);
std::string_view name(Proto proto);

// A request the plan layer refuses (NVLS across hosts, tree all-to-all, ...). Never a silent
// fallback to another algorithm: SimAI's Tree->Ring fallback is what we avoid.
class PlanError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct RankInfo {
  int host = 0;       // any id; ranks with equal host share NVLink
  int local = 0;      // GPU index inside the host
  int nic = 0;        // NIC (rail) index inside the host the GPU is closest to
  int host_nics = 0;  // NICs of its host, rails 0 to host_nics - 1 (0: not known, all of them)
};

// Hardware facts the tuning model needs, and the NCCL version that tunes for them; bandwidths
// are per channel, as NCCL's graph search reports them (bwIntra / bwInter in GB/s).
struct Hardware {
  Arch arch = Arch::Hopper;
  IntraLink intra = IntraLink::NVLink;
  double bw_intra_gbps = 20.6;  // SM90 NVLink per link, src/graph/topo.h (nccl-facts.md §3)
  double bw_inter_gbps = 12.0;  // NET_BW 100 Gb/s, src/graph/topo.h (nccl-facts.md §3)
  int max_channels = 16;        // channels the kernels run in a host (graph.hpp)
  bool nvls = false;            // NVSwitch with NVLink SHARP (Hopper+ with NVLS enabled)
  // CollNet: the switches between hosts reduce (SHARP) and NCCL may use them
  // (NCCL_COLLNET_ENABLE=1, which NCCL leaves off by default).
  bool collnet = false;
  Cpu cpu = Cpu::Intel;
  NicPath nic_path = NicPath::PcieSwitch;
  Transport transport = Transport::Ib;
  int nccl_version = kNcclVersionModelled;
  std::uint64_t buffsize = kDefaultBuffsize;  // NCCL_BUFFSIZE
  // The node's NICs, for communicators across hosts (graph.hpp): 0 = unknown, and such
  // communicators use max_channels and bw_inter_gbps as given.
  int nics_per_host = 0;
  double nic_gbps = 0;  // one NIC's rate, GB/s (NCCL: port speed / 8)
  double pci_gbps = 0;  // the GPU-NIC PCIe path, GB/s (0: not limiting)
};

// Communicator rank r is ranks[r].
struct RankLayout {
  std::vector<RankInfo> ranks;
  Hardware hw;
};

// bytes follows nccl-tests' "size": the whole array. All-gather: the output (each rank
// contributes bytes/n); reduce-scatter: the input (each rank keeps bytes/n); all-to-all: one
// rank's send buffer (bytes/n per peer).
struct Call {
  Op op = Op::AllReduce;
  std::uint64_t bytes = 0;
  int root = 0;  // broadcast / reduce root; send/recv sender
  int peer = 1;  // send/recv receiver, or kShift
  // Send/recv as nccl-tests' sendrecv_perf runs it (src/sendrecv.cu): every rank sends to the
  // next and receives from the previous, at once.
  static constexpr int kShift = -1;
  Algo algo = Algo::Auto;
  Proto proto = Proto::Auto;
  int channels = 0;  // 0: chosen by the tuning model
  // The reduction is ncclAvg (NCCL runs it as a pre-multiplied sum or a sum then division),
  // which NCCL's PAT reduce-scatter does not take; the reduction's compute is not modelled.
  bool average = false;
  std::uint64_t chunk_bytes =
      0;  // 0: NCCL's chunk for the protocol; tests shrink it to force loops
};

}  // namespace fabricsim::collectives
