#include "workload/chakra_import.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <queue>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "chakra_et.pb.h"  // generated from workload/chakra_et.proto
#include "workload/given_kernels.hpp"

namespace fabricsim::workload {
namespace {

namespace pb = fabricsim::chakra;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

[[noreturn]] void fail(const std::string& file, const std::string& what) {
  throw std::invalid_argument(file + ": " + what);
}

[[noreturn]] void fail(const std::string& file, std::uint64_t node, const std::string& what) {
  fail(file, "node " + std::to_string(node) + ": " + what);
}

// An integer attribute's value, whichever integer kind the writer chose; nothing if the
// attribute holds no integer.
std::optional<std::int64_t> integer(const pb::Attribute& a, const std::string& file,
                                    std::uint64_t node) {
  const auto unsigned_value = [&](std::uint64_t v) -> std::int64_t {
    if (v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(file, node, "attribute " + a.name() + " = " + std::to_string(v) + " is too large");
    }
    return static_cast<std::int64_t>(v);
  };
  switch (a.value_case()) {
    case pb::Attribute::kInt32Val:
      return a.int32_val();
    case pb::Attribute::kInt64Val:
      return a.int64_val();
    case pb::Attribute::kUint32Val:
      return a.uint32_val();
    case pb::Attribute::kUint64Val:
      return unsigned_value(a.uint64_val());
    case pb::Attribute::kSint32Val:
      return a.sint32_val();
    case pb::Attribute::kSint64Val:
      return a.sint64_val();
    case pb::Attribute::kFixed32Val:
      return a.fixed32_val();
    case pb::Attribute::kFixed64Val:
      return unsigned_value(a.fixed64_val());
    case pb::Attribute::kSfixed32Val:
      return a.sfixed32_val();
    case pb::Attribute::kSfixed64Val:
      return a.sfixed64_val();
    default:
      return std::nullopt;
  }
}

ChakraNode from_proto(const pb::Node& p, const std::string& file) {
  ChakraNode n;
  n.id = p.id();
  n.name = p.name();
  if (p.type() < pb::INVALID_NODE || p.type() > pb::COMM_COLL_NODE) {
    fail(file, n.id, "type " + std::to_string(p.type()) + " is not a Chakra node type");
  }
  n.type = static_cast<ChakraNode::Type>(p.type());
  n.data_deps.assign(p.data_deps().begin(), p.data_deps().end());
  n.duration_us = p.duration_micros();
  n.inputs = p.inputs().values();
  for (const pb::Attribute& a : p.attr()) {
    const std::string& key = a.name();
    if (key == "is_cpu_op") {
      const std::optional<std::int64_t> v = integer(a, file, n.id);
      if (a.value_case() != pb::Attribute::kBoolVal && !v) {
        fail(file, n.id, "attribute is_cpu_op is neither a boolean nor an integer");
      }
      n.cpu = v ? *v != 0 : a.bool_val();
      continue;
    }
    if (key == "pg_name") {
      const std::optional<std::int64_t> v = integer(a, file, n.id);
      n.pg_name = v ? std::to_string(*v) : a.string_val();
      continue;
    }
    std::optional<std::int64_t>* field = key == "comm_type"   ? &n.comm_type
                                         : key == "comm_size" ? &n.comm_size
                                         : key == "comm_src"  ? &n.comm_src
                                         : key == "comm_dst"  ? &n.comm_dst
                                                              : nullptr;
    if (!field && key != "comm_tag") continue;
    const std::optional<std::int64_t> v = integer(a, file, n.id);
    if (!v) fail(file, n.id, "attribute " + key + " is not an integer");
    if (field) {
      *field = v;
    } else {
      n.comm_tag = *v;
    }
  }
  return n;
}

pb::GlobalMetadata metadata() {
  pb::GlobalMetadata meta;
  meta.set_version("0.0.4");
  return meta;
}

pb::Node to_proto(const ChakraNode& n) {
  pb::Node p;
  p.set_id(n.id);
  p.set_name(n.name);
  p.set_type(static_cast<pb::NodeType>(n.type));
  for (const std::uint64_t d : n.data_deps) p.add_data_deps(d);
  p.set_duration_micros(n.duration_us);
  if (!n.inputs.empty()) p.mutable_inputs()->set_values(n.inputs);
  const auto attr = [&](const char* name) {
    pb::Attribute* a = p.add_attr();
    a->set_name(name);
    return a;
  };
  attr("is_cpu_op")->set_bool_val(n.cpu);
  if (n.comm_type) attr("comm_type")->set_int64_val(*n.comm_type);
  if (n.comm_size) attr("comm_size")->set_int64_val(*n.comm_size);
  if (n.comm_src) attr("comm_src")->set_int64_val(*n.comm_src);
  if (n.comm_dst) attr("comm_dst")->set_int64_val(*n.comm_dst);
  if (n.comm_tag != 0) attr("comm_tag")->set_int64_val(n.comm_tag);
  if (!n.pg_name.empty()) attr("pg_name")->set_string_val(n.pg_name);
  return p;
}

template <typename Message>
bool read_delimited(CodedInputStream& in, Message& m) {
  std::uint32_t size = 0;
  if (!in.ReadVarint32(&size)) return false;
  if (size > static_cast<std::uint32_t>(std::numeric_limits<int>::max())) {
    throw std::runtime_error("undecodable");
  }
  const CodedInputStream::Limit limit = in.PushLimit(static_cast<int>(size));
  if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
    throw std::runtime_error("undecodable");
  }
  in.PopLimit(limit);
  return true;
}

template <typename Message>
void write_delimited(CodedOutputStream& out, const Message& m) {
  out.WriteVarint32(static_cast<std::uint32_t>(m.ByteSizeLong()));
  m.SerializeWithCachedSizes(&out);
}

// --- Building the DAG ---------------------------------------------------------------------------

constexpr std::uint32_t kDropped = ~0u;

// A node's place while the DAG is built.
struct NodeState {
  std::uint32_t op = kDropped;  // its op on the rank, or kDropped
  // What a dependent waits for: {op} if it has one, else its own dependencies' ops.
  std::vector<std::uint32_t> stands_for;
  std::uint32_t comm = kDropped;  // a communication's Dag::comms index
};

struct RankState {
  std::vector<std::uint32_t> order;  // node indices in a topological order
  std::vector<NodeState> nodes;
};

// Lowest id first among the nodes whose dependencies are listed (Kahn's algorithm).
std::vector<std::uint32_t> topological_order(const ChakraTrace& t) {
  const std::size_t n = t.nodes.size();
  std::unordered_map<std::uint64_t, std::uint32_t> index;
  index.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    if (!index.emplace(t.nodes[i].id, i).second) {
      fail(t.file, t.nodes[i].id, "the id appears twice in the trace");
    }
  }
  std::vector<std::uint32_t> waiting(n, 0);
  std::vector<std::vector<std::uint32_t>> dependents(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    for (const std::uint64_t d : t.nodes[i].data_deps) {
      const auto it = index.find(d);
      if (it == index.end()) {
        fail(t.file, t.nodes[i].id, "depends on node " + std::to_string(d) + ", not in the trace");
      }
      if (it->second == i) fail(t.file, t.nodes[i].id, "depends on itself");
      dependents[it->second].push_back(i);
      ++waiting[i];
    }
  }
  using Key = std::pair<std::uint64_t, std::uint32_t>;  // (id, index)
  std::priority_queue<Key, std::vector<Key>, std::greater<>> free;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) free.emplace(t.nodes[i].id, i);
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  while (!free.empty()) {
    const std::uint32_t i = free.top().second;
    free.pop();
    order.push_back(i);
    for (const std::uint32_t d : dependents[i]) {
      if (--waiting[d] == 0) free.emplace(t.nodes[d].id, d);
    }
  }
  if (order.size() != n) {
    for (std::uint32_t i = 0; i < n; ++i) {
      if (waiting[i] != 0) fail(t.file, t.nodes[i].id, "its dependencies form a cycle");
    }
  }
  return order;
}

bool contains_word(std::string_view name, std::string_view word) {
  const auto eq = [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == static_cast<unsigned char>(b);
  };
  return std::search(name.begin(), name.end(), word.begin(), word.end(), eq) != name.end();
}

Phase phase_of(const std::string& name) {
  if (contains_word(name, "backward")) return Phase::Backward;
  if (contains_word(name, "optimizer")) return Phase::Optimizer;
  return Phase::Forward;
}

std::uint8_t op_name(std::string_view name) {
  for (int i = 0; i < kOpNameCount; ++i) {
    if (name == kOpNames[i]) return static_cast<std::uint8_t>(i);
  }
  throw std::logic_error("chakra import: no op name " + std::string(name));
}

struct CollectiveKind {
  collectives::Op op;
  const char* name;  // in kOpNames
};

CollectiveKind collective_kind(const ChakraTrace& t, const ChakraNode& n) {
  if (!n.comm_type) fail(t.file, n.id, "a collective without the comm_type attribute");
  switch (*n.comm_type) {
    case 0:
      return {collectives::Op::AllReduce, "allreduce"};
    case 1:
      return {collectives::Op::Reduce, "reduce"};
    case 2:
      return {collectives::Op::AllGather, "allgather"};
    case 5:
      return {collectives::Op::Broadcast, "broadcast"};
    case 6:
      return {collectives::Op::AllToAll, "alltoall"};
    case 7:
      return {collectives::Op::ReduceScatter, "reducescatter"};
    case 3:
    case 4:
    case 8:
    case 9: {
      static constexpr const char* kNames[] = {
          "GATHER", "SCATTER", "", "", "", "REDUCE_SCATTER_BLOCK", "BARRIER"};
      fail(t.file, n.id,
           std::string("comm_type ") + kNames[*n.comm_type - 3] +
               " is not supported (ASTRA-sim does not run it either); supported: ALL_REDUCE, "
               "REDUCE, ALL_GATHER, BROADCAST, ALL_TO_ALL, REDUCE_SCATTER");
    }
    default:
      fail(t.file, n.id,
           "comm_type " + std::to_string(*n.comm_type) + " is not a Chakra collective type (0-9)");
  }
}

std::int64_t size_of(const ChakraTrace& t, const ChakraNode& n) {
  if (!n.comm_size) fail(t.file, n.id, "a communication without the comm_size attribute");
  if (*n.comm_size < 0) fail(t.file, n.id, "comm_size is negative");
  return *n.comm_size;
}

// Process groups named in METADATA nodes (the PyTorch converter's form): the string is a Python
// list around one JSON string, or the JSON itself.
void add_metadata_groups(const ChakraTrace& t, const ChakraNode& n, int world,
                         ChakraGroups& groups) {
  std::string_view s = n.inputs;
  if (s.size() >= 4 && s[0] == '[' && (s[1] == '\'' || s[1] == '"') && s[s.size() - 1] == ']' &&
      s[s.size() - 2] == s[1]) {
    s = s.substr(2, s.size() - 4);
  }
  if (s.empty()) return;
  const nlohmann::json j = nlohmann::json::parse(s, nullptr, false);
  if (j.is_discarded() || !j.is_array()) return;  // metadata of another kind
  for (const nlohmann::json& item : j) {
    if (!item.is_object() || !item.contains("pg_name") || !item.contains("ranks")) continue;
    const nlohmann::json& name = item["pg_name"];
    const nlohmann::json& ranks = item["ranks"];
    if (!(name.is_string() || name.is_number_integer()) || !ranks.is_array()) {
      fail(t.file, n.id, "a process group needs a pg_name and a list of ranks");
    }
    const std::string key = name.is_string() ? name.get<std::string>() : name.dump();
    std::vector<int> members;
    for (const nlohmann::json& r : ranks) {
      if (!r.is_number_integer() || r.get<std::int64_t>() < 0 || r.get<std::int64_t>() >= world) {
        fail(t.file, n.id,
             "process group " + key + ": " + r.dump() + " is not a rank (the trace has " +
                 std::to_string(world) + ")");
      }
      members.push_back(r.get<int>());
    }
    if (members.empty()) {
      for (int r = 0; r < world; ++r) members.push_back(r);
    }
    const auto [it, fresh] = groups.emplace(key, members);
    if (!fresh && it->second != members) {
      fail(t.file, n.id, "process group " + key + " is defined twice with different ranks");
    }
  }
}

class DagBuilder {
 public:
  DagBuilder(const std::vector<ChakraTrace>& traces, ChakraGroups groups)
      : traces_(traces), groups_(std::move(groups)), world_(static_cast<int>(traces.size())) {
    for (const ChakraTrace& t : traces_) {
      for (const ChakraNode& n : t.nodes) {
        if (n.type == ChakraNode::Type::Metadata) add_metadata_groups(t, n, world_, groups_);
      }
    }
    for (const auto& [name, ranks] : groups_) check_group(name, ranks);
    dag_.ranks.resize(traces_.size());
    state_.resize(traces_.size());
  }

  Dag build() {
    for (std::size_t r = 0; r < traces_.size(); ++r) {
      state_[r].order = topological_order(traces_[r]);
      state_[r].nodes.resize(traces_[r].nodes.size());
    }
    match_collectives();
    match_transfers();
    for (std::uint32_t r = 0; r < traces_.size(); ++r) build_rank(r);
    dag_.ready_order = true;
    return std::move(dag_);
  }

 private:
  void check_group(const std::string& name, const std::vector<int>& ranks) {
    std::vector<int> sorted = ranks;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
      throw std::invalid_argument("process group " + name + " lists a rank twice");
    }
    for (const int r : ranks) {
      if (r < 0 || r >= world_) {
        throw std::invalid_argument("process group " + name + " names rank " + std::to_string(r) +
                                    ", but the trace has " + std::to_string(world_) + " ranks");
      }
    }
  }

  const std::vector<int>& group_of(std::uint32_t r, const ChakraNode& n) {
    const ChakraTrace& t = traces_[r];
    if (n.pg_name.empty() || n.pg_name == "0") {
      if (world_group_.empty()) {
        for (int k = 0; k < world_; ++k) world_group_.push_back(k);
      }
      return world_group_;
    }
    const auto it = groups_.find(n.pg_name);
    if (it == groups_.end()) {
      fail(t.file, n.id,
           "process group '" + n.pg_name +
               "' is defined neither in the communicator file nor in a METADATA "
               "node");
    }
    if (std::find(it->second.begin(), it->second.end(), static_cast<int>(r)) == it->second.end()) {
      fail(t.file, n.id,
           "rank " + std::to_string(r) + " is not in its process group '" + n.pg_name + "'");
    }
    return it->second;
  }

  std::uint32_t group_index(const std::vector<int>& ranks) {
    const auto [it, fresh] =
        group_ids_.try_emplace(ranks, static_cast<std::uint32_t>(dag_.groups.size()));
    if (fresh) dag_.groups.push_back(ranks);
    return it->second;
  }

  // The k-th collective of each member on a group is one collective: same type, same size.
  void match_collectives() {
    struct Issued {
      std::uint32_t rank, node;
    };
    // Per process group (as NCCL's communicators, each keeps its own order): its ranks, and per
    // member position the collectives issued.
    struct Lanes {
      std::vector<int> ranks;
      std::vector<std::vector<Issued>> issued;
    };
    std::map<std::string, Lanes> by_group;
    for (std::uint32_t r = 0; r < traces_.size(); ++r) {
      const ChakraTrace& t = traces_[r];
      for (const std::uint32_t i : state_[r].order) {
        const ChakraNode& n = t.nodes[i];
        if (n.type != ChakraNode::Type::Collective) continue;
        collective_kind(t, n);
        size_of(t, n);
        const std::vector<int>& g = group_of(r, n);
        Lanes& l = by_group[n.pg_name.empty() ? "0" : n.pg_name];
        l.ranks = g;
        l.issued.resize(g.size());
        const auto pos = std::find(g.begin(), g.end(), static_cast<int>(r)) - g.begin();
        l.issued[pos].push_back({r, i});
      }
    }
    for (const auto& [name, l] : by_group) {
      const std::vector<int>& g = l.ranks;
      const std::vector<std::vector<Issued>>& lanes = l.issued;
      const std::size_t count = lanes[0].size();
      for (std::size_t p = 1; p < lanes.size(); ++p) {
        if (lanes[p].size() != count) {
          throw std::invalid_argument("collectives do not match: rank " + std::to_string(g[0]) +
                                      " issues " + std::to_string(count) + " on process group '" +
                                      name + "', rank " + std::to_string(g[p]) + " issues " +
                                      std::to_string(lanes[p].size()));
        }
      }
      for (std::size_t k = 0; k < count; ++k) {
        const Issued first = lanes[0][k];
        const ChakraTrace& t0 = traces_[first.rank];
        const ChakraNode& n0 = t0.nodes[first.node];
        for (std::size_t p = 1; p < lanes.size(); ++p) {
          const ChakraTrace& t = traces_[lanes[p][k].rank];
          const ChakraNode& n = t.nodes[lanes[p][k].node];
          if (*n.comm_type != *n0.comm_type || *n.comm_size != *n0.comm_size) {
            fail(t.file, n.id,
                 "collective " + std::to_string(k + 1) + " on its group is comm_type " +
                     std::to_string(*n.comm_type) + " of " + std::to_string(*n.comm_size) +
                     " bytes, but " + t0.file + " node " + std::to_string(n0.id) +
                     " (the same collective) is comm_type " + std::to_string(*n0.comm_type) +
                     " of " + std::to_string(*n0.comm_size) + " bytes");
          }
        }
        const CollectiveKind kind = collective_kind(t0, n0);
        const auto members = static_cast<std::uint64_t>(g.size());
        auto bytes = static_cast<std::uint64_t>(*n0.comm_size);
        if (kind.op == collectives::Op::AllGather) {
          if (bytes > std::numeric_limits<std::uint64_t>::max() / members) {
            fail(t0.file, n0.id, "comm_size x ranks overflows");
          }
          bytes *= members;
        } else if (kind.op == collectives::Op::ReduceScatter ||
                   kind.op == collectives::Op::AllToAll) {
          bytes = bytes / members * members;
        }
        if (members < 2 || bytes == 0) continue;  // moves nothing: left out
        const auto c = static_cast<std::uint32_t>(dag_.comms.size());
        dag_.comms.push_back(Comm{kind.op, bytes, group_index(g)});
        for (const std::vector<Issued>& lane : lanes) {
          state_[lane[k].rank].nodes[lane[k].node].comm = c;
        }
      }
    }
  }

  // The k-th send from s to d with tag t is the k-th receive at d from s with tag t.
  void match_transfers() {
    using Key = std::tuple<int, int, std::int64_t>;          // (src, dst, tag)
    std::map<Key, std::vector<std::uint32_t>> sends, recvs;  // node indices, in order
    for (std::uint32_t r = 0; r < traces_.size(); ++r) {
      const ChakraTrace& t = traces_[r];
      for (const std::uint32_t i : state_[r].order) {
        const ChakraNode& n = t.nodes[i];
        const bool send = n.type == ChakraNode::Type::Send;
        if (!send && n.type != ChakraNode::Type::Recv) continue;
        const std::optional<std::int64_t>& peer = send ? n.comm_dst : n.comm_src;
        const std::optional<std::int64_t>& self = send ? n.comm_src : n.comm_dst;
        const char* peer_key = send ? "comm_dst" : "comm_src";
        if (!peer)
          fail(t.file, n.id, std::string(send ? "a send" : "a receive") + " without " + peer_key);
        if (self && *self != r) {
          fail(t.file, n.id,
               std::string(send ? "comm_src" : "comm_dst") + " is " + std::to_string(*self) +
                   ", but this is rank " + std::to_string(r) + "'s trace");
        }
        if (*peer < 0 || *peer >= world_) {
          fail(t.file, n.id,
               std::string(peer_key) + " " + std::to_string(*peer) +
                   " is not a rank (the trace has " + std::to_string(world_) + ")");
        }
        if (*peer == r) fail(t.file, n.id, "a transfer to itself");
        size_of(t, n);
        const int other = static_cast<int>(*peer);
        const Key key = send ? Key{static_cast<int>(r), other, n.comm_tag}
                             : Key{other, static_cast<int>(r), n.comm_tag};
        (send ? sends : recvs)[key].push_back(i);
      }
    }
    const auto unmatched = [&](const Key& k, bool send, std::uint32_t node) {
      const int rank = send ? std::get<0>(k) : std::get<1>(k);
      const ChakraTrace& t = traces_[rank];
      fail(t.file, t.nodes[node].id,
           std::string(send ? "a send to rank " + std::to_string(std::get<1>(k))
                            : "a receive from rank " + std::to_string(std::get<0>(k))) +
               " (tag " + std::to_string(std::get<2>(k)) + ") has no matching " +
               (send ? "receive" : "send"));
    };
    for (const auto& [key, s] : sends) {
      const auto it = recvs.find(key);
      const std::size_t matched = it == recvs.end() ? 0 : it->second.size();
      if (matched < s.size()) unmatched(key, true, s[matched]);
      const auto [src, dst, tag] = key;
      const ChakraTrace& ts = traces_[src];
      const ChakraTrace& td = traces_[dst];
      for (std::size_t k = 0; k < s.size(); ++k) {
        const ChakraNode& ns = ts.nodes[s[k]];
        const ChakraNode& nd = td.nodes[it->second[k]];
        if (*ns.comm_size != *nd.comm_size) {
          fail(td.file, nd.id,
               "receives " + std::to_string(*nd.comm_size) + " bytes, but its send (" + ts.file +
                   " node " + std::to_string(ns.id) + ") sends " + std::to_string(*ns.comm_size));
        }
        if (*ns.comm_size == 0) continue;  // moves nothing: left out
        const auto c = static_cast<std::uint32_t>(dag_.comms.size());
        dag_.comms.push_back(Comm{collectives::Op::SendRecv,
                                  static_cast<std::uint64_t>(*ns.comm_size),
                                  group_index({src, dst})});
        state_[src].nodes[s[k]].comm = c;
        state_[dst].nodes[it->second[k]].comm = c;
      }
    }
    for (const auto& [key, r] : recvs) {
      const auto it = sends.find(key);
      const std::size_t matched = it == sends.end() ? 0 : it->second.size();
      if (matched < r.size()) unmatched(key, false, r[matched]);
    }
  }

  void build_rank(std::uint32_t r) {
    const ChakraTrace& t = traces_[r];
    RankDag& rd = dag_.ranks[r];
    std::vector<NodeState>& st = state_[r].nodes;
    std::unordered_map<std::uint64_t, std::uint32_t> index;
    for (std::uint32_t i = 0; i < t.nodes.size(); ++i) index.emplace(t.nodes[i].id, i);
    std::vector<std::uint32_t> deps;
    for (const std::uint32_t i : state_[r].order) {
      const ChakraNode& n = t.nodes[i];
      deps.clear();
      for (const std::uint64_t d : n.data_deps) {
        const std::vector<std::uint32_t>& s = st[index.at(d)].stands_for;
        deps.insert(deps.end(), s.begin(), s.end());
      }
      std::sort(deps.begin(), deps.end());
      deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
      Op op;
      op.phase = phase_of(n.name);
      switch (n.type) {
        case ChakraNode::Type::MemLoad:
        case ChakraNode::Type::MemStore:
          fail(t.file, n.id, "remote memory nodes (MEM_LOAD, MEM_STORE) are not supported");
        case ChakraNode::Type::Invalid:
        case ChakraNode::Type::Metadata:
          st[i].stands_for = deps;
          continue;
        case ChakraNode::Type::Compute: {
          constexpr std::uint64_t kPsPerUs = 1'000'000;
          if (n.duration_us >
              static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / kPsPerUs) {
            fail(t.file, n.id,
                 "duration_micros " + std::to_string(n.duration_us) +
                     " is beyond the largest simulated time (2^63 ps)");
          }
          // ASTRA-sim runs a zero-length node for 1 ns.
          const std::int64_t ps =
              n.duration_us == 0 ? 1000 : static_cast<std::int64_t>(n.duration_us * kPsPerUs);
          op.kind = OpKind::Compute;
          op.stream = n.cpu ? Stream::Cpu : Stream::Compute;
          op.name = op_name(n.cpu ? "cpu_op" : "kernel");
          op.item = kernels_.of(dag_, ps);
          break;
        }
        case ChakraNode::Type::Collective:
        case ChakraNode::Type::Send:
        case ChakraNode::Type::Recv: {
          if (n.cpu)
            fail(t.file, n.id, "a communication marked is_cpu_op (ASTRA-sim refuses it too)");
          if (st[i].comm == kDropped) {
            st[i].stands_for = deps;
            continue;
          }
          op.kind = n.type == ChakraNode::Type::Send   ? OpKind::Send
                    : n.type == ChakraNode::Type::Recv ? OpKind::Recv
                                                       : OpKind::Collective;
          op.stream = Stream::Comm;
          op.name = op_name(n.type == ChakraNode::Type::Send   ? "send"
                            : n.type == ChakraNode::Type::Recv ? "recv"
                                                               : collective_kind(t, n).name);
          op.item = st[i].comm;
          break;
        }
      }
      op.deps_begin = static_cast<std::uint32_t>(rd.deps.size());
      rd.deps.insert(rd.deps.end(), deps.begin(), deps.end());
      op.deps_end = static_cast<std::uint32_t>(rd.deps.size());
      st[i].op = static_cast<std::uint32_t>(rd.ops.size());
      st[i].stands_for = {st[i].op};
      rd.ops.push_back(op);
      rd.issue_key.push_back(n.id);
    }
  }

  const std::vector<ChakraTrace>& traces_;
  ChakraGroups groups_;
  int world_;
  std::vector<int> world_group_;
  std::vector<RankState> state_;
  std::map<std::vector<int>, std::uint32_t> group_ids_;
  GivenKernels kernels_;
  Dag dag_;
};

}  // namespace

ChakraTrace read_chakra_trace(std::istream& in, const std::string& file) {
  google::protobuf::io::IstreamInputStream raw(&in);
  CodedInputStream coded(&raw);
  ChakraTrace t;
  t.file = file;
  try {
    pb::GlobalMetadata meta;
    if (!read_delimited(coded, meta)) fail(file, "empty: a Chakra trace starts with its metadata");
    pb::Node node;
    while (read_delimited(coded, node)) {
      t.nodes.push_back(from_proto(node, file));
      node.Clear();
    }
  } catch (const std::runtime_error&) {
    fail(file, "not a Chakra execution trace: message " + std::to_string(t.nodes.size() + 1) +
                   " does not decode (truncated, or another format)");
  }
  if (in.bad()) fail(file, "read error");
  return t;
}

void write_chakra_trace(std::ostream& out, const ChakraTrace& trace) {
  google::protobuf::io::OstreamOutputStream raw(&out);
  CodedOutputStream coded(&raw);
  write_delimited(coded, metadata());
  for (const ChakraNode& n : trace.nodes) write_delimited(coded, to_proto(n));
}

ChakraTrace read_chakra_json_trace(std::istream& in, const std::string& file) {
  ChakraTrace t;
  t.file = file;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // chakra_et.proto holds only the fields read here
  // The objects follow one another with no separator; each is read on its own.
  bool meta = true;
  for (std::size_t object = 1; (in >> std::ws) && in.peek() != std::char_traits<char>::eof();
       ++object) {
    const std::string where = meta ? "the metadata object" : "object " + std::to_string(object);
    nlohmann::json j;
    std::string text;
    try {
      in >> j;
      text = j.dump();
    } catch (const nlohmann::json::exception&) {
      fail(file, where + " is not valid JSON");
    }
    if (!j.is_object()) fail(file, where + " is not a JSON object");
    // Chakra's GlobalMetadata carries the schema version: an object without it is something else.
    if (meta && !j.contains("version")) {
      fail(file, "not a Chakra trace: its first object has no \"version\" (GlobalMetadata)");
    }
    // Skipping unknown fields would also turn a node type of an unknown name into the default
    // (an invalid node, left out): refuse it instead.
    if (const auto type = j.find("type"); !meta && type != j.end() && type->is_string() &&
                                          !pb::NodeType_descriptor()->FindValueByName(*type)) {
      fail(file, where + " is not a Chakra Node: type " + type->dump() + " is not a node type");
    }
    pb::GlobalMetadata m;
    pb::Node node;
    google::protobuf::Message& target = meta ? static_cast<google::protobuf::Message&>(m) : node;
    const auto status = google::protobuf::util::JsonStringToMessage(text, &target, options);
    if (!status.ok()) {
      fail(file, where + " is not a Chakra " + (meta ? "GlobalMetadata" : "Node") + ": " +
                     std::string(status.message()));
    }
    if (!meta) t.nodes.push_back(from_proto(node, file));
    meta = false;
  }
  if (in.bad()) fail(file, "read error");
  if (meta) fail(file, "empty: a Chakra trace starts with its metadata");
  return t;
}

void write_chakra_json_trace(std::ostream& out, const ChakraTrace& trace) {
  const auto write = [&](const google::protobuf::Message& m) {
    std::string text;
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;  // as the jsonizer's MessageToJson
    if (!google::protobuf::util::MessageToJsonString(m, &text, options).ok()) {
      throw std::logic_error("a Chakra message does not print as JSON");
    }
    out << text;
  };
  write(metadata());
  for (const ChakraNode& n : trace.nodes) write(to_proto(n));
}

ChakraGroups read_chakra_groups(std::istream& in, const std::string& file) {
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded()) fail(file, "not valid JSON");
  if (!j.is_object()) fail(file, "a communicator file is an object: {\"name\": [ranks], ...}");
  ChakraGroups out;
  for (const auto& [name, ranks] : j.items()) {
    if (!ranks.is_array()) fail(file, "group '" + name + "' is not a list of ranks");
    std::vector<int> members;
    for (const nlohmann::json& r : ranks) {
      if (!r.is_number_integer() || r.get<std::int64_t>() < 0 ||
          r.get<std::int64_t>() > std::numeric_limits<int>::max()) {
        fail(file, "group '" + name + "': " + r.dump() + " is not a rank");
      }
      members.push_back(r.get<int>());
    }
    out.emplace(name, std::move(members));
  }
  return out;
}

Dag build_chakra_dag(const std::vector<ChakraTrace>& traces, const ChakraGroups& groups) {
  if (traces.empty())
    throw std::invalid_argument("a Chakra import needs at least one rank's trace");
  if (std::all_of(traces.begin(), traces.end(),
                  [](const ChakraTrace& t) { return t.nodes.empty(); })) {
    throw std::invalid_argument(traces.front().file +
                                ": no node in any rank's trace: nothing to simulate (an empty "
                                "trace, or not a Chakra execution trace)");
  }
  return DagBuilder(traces, groups).build();
}

}  // namespace fabricsim::workload
