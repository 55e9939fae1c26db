#include "collectives/busbw.hpp"

namespace fabricsim::collectives {

double busbw_factor(Op op, int n_ranks) {
  const double n = n_ranks;
  switch (op) {
    case Op::AllReduce:
      return 2.0 * (n - 1) / n;
    case Op::AllGather:
    case Op::ReduceScatter:
    case Op::AllToAll:
      return (n - 1) / n;
    case Op::Broadcast:
    case Op::Reduce:
    case Op::SendRecv:
      return 1.0;
  }
  return 1.0;
}

double algbw_gbps(std::uint64_t bytes, double seconds) {
  // A collective that moves nothing (one rank, zero bytes) takes no time and has no rate.
  return seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0;
}

double busbw_gbps(Op op, int n_ranks, std::uint64_t bytes, double seconds) {
  const double factor = busbw_factor(op, n_ranks);
  return factor > 0 ? algbw_gbps(bytes, seconds) * factor : 0;
}

}  // namespace fabricsim::collectives
