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
  return static_cast<double>(bytes) / seconds / 1e9;
}

double busbw_gbps(Op op, int n_ranks, std::uint64_t bytes, double seconds) {
  return algbw_gbps(bytes, seconds) * busbw_factor(op, n_ranks);
}

}  // namespace fabricsim::collectives
