#include "collectives/call.hpp"

namespace fabricsim::collectives {

std::string_view name(Op op) {
  switch (op) {
    case Op::AllReduce:
      return "allreduce";
    case Op::AllGather:
      return "allgather";
    case Op::ReduceScatter:
      return "reducescatter";
    case Op::Broadcast:
      return "broadcast";
    case Op::Reduce:
      return "reduce";
    case Op::AllToAll:
      return "alltoall";
    case Op::SendRecv:
      return "sendrecv";
  }
  return "?";
}

std::string_view name(Algo algo) {
  switch (algo) {
    case Algo::Auto:
      return "auto";
    case Algo::Ring:
      return "ring";
    case Algo::Tree:
      return "tree";
    case Algo::Nvls:
      return "nvls";
    case Algo::NvlsTree:
      return "nvlstree";
    case Algo::CollNetChain:
      return "collnetchain";
    case Algo::CollNetDirect:
      return "collnetdirect";
    case Algo::Pat:
      return "pat";
    case Algo::P2P:
      return "p2p";
  }
  return "?";
}

std::string_view name(Proto proto) {
  switch (proto) {
    case Proto::Auto:
      return "auto";
    case Proto::LL:
      return "LL";
    case Proto::LL128:
      return "LL128";
    case Proto::Simple:
      return "Simple";
  }
  return "?";
}

}  // namespace fabricsim::collectives
