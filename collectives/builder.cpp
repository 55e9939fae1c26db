#include "collectives/builder.hpp"

#include <algorithm>

#include "collectives/protocol.hpp"

namespace fabricsim::collectives {

PlanBuilder::PlanBuilder(Plan& plan, const Hosts& hosts, bool whole)
    : plan_(plan), hosts_(hosts), whole_(whole) {}

void PlanBuilder::reserve_steps(int rank, std::size_t steps) {
  if (whole_) return;  // a step per connection, not `steps`
  if (!plan_.held.empty() && !plan_.held[static_cast<std::size_t>(rank)]) return;
  std::vector<Step>& list = plan_.steps[static_cast<std::size_t>(rank)];
  list.reserve(list.size() + steps);
}

PlanBuilder::Conn& PlanBuilder::conn(std::uint64_t key) {
  Cached& c = cache_[(key ^ key >> 16 ^ key >> 40) % kCache];
  if (c.key != key) c = Cached{key, &conns_[key]};
  return *c.conn;
}

int PlanBuilder::add_chunk(std::uint64_t offset, std::uint64_t bytes, int owner, int dest) {
  plan_.chunks.push_back(Chunk{offset, bytes, owner, dest});
  return static_cast<int>(plan_.chunks.size()) - 1;
}

std::uint64_t PlanBuilder::add_channel_loops(std::uint64_t chunk, int owner, int& base) {
  const int nch = plan_.channels;
  const std::uint64_t biggest = part_size(plan_.bytes, nch, 0);
  const std::uint64_t loops = std::max<std::uint64_t>(1, div_up(biggest, chunk));
  base = static_cast<int>(plan_.chunks.size());
  for (int c = 0; c < nch; ++c) {
    const std::uint64_t share = part_size(plan_.bytes, nch, c);
    for (std::uint64_t l = 0; l < loops; ++l) {
      add_chunk(part_offset(plan_.bytes, nch, c) + part_offset(share, loops, l),
                part_size(share, loops, l), owner);
    }
  }
  plan_.slice_bytes = part_size(biggest, loops, 0);
  return loops;
}

std::uint64_t PlanBuilder::add_block_loops(std::uint64_t chunk, int slices, bool owners,
                                           int& base) {
  const int n = plan_.n_ranks;
  const int nch = plan_.channels;
  const std::uint64_t total = plan_.bytes;
  const std::uint64_t biggest = part_size(part_size(total, n, 0), nch, 0);
  const std::uint64_t loops = std::max<std::uint64_t>(1, div_up(biggest, chunk));
  base = static_cast<int>(plan_.chunks.size());
  for (int j = 0; j < n; ++j) {
    const std::uint64_t block = part_size(total, n, j);
    for (int c = 0; c < nch; ++c) {
      const std::uint64_t share = part_size(block, nch, c);
      const std::uint64_t share_off = part_offset(total, n, j) + part_offset(block, nch, c);
      for (std::uint64_t l = 0; l < loops; ++l) {
        const std::uint64_t piece = part_size(share, loops, l);
        const std::uint64_t piece_off = share_off + part_offset(share, loops, l);
        for (int s = 0; s < slices; ++s) {
          add_chunk(piece_off + part_offset(piece, slices, s), part_size(piece, slices, s),
                    owners ? j : -1);
        }
      }
    }
  }
  plan_.slice_bytes = part_size(part_size(biggest, loops, 0), slices, 0);
  return loops;
}

std::uint32_t PlanBuilder::send(int from, int to, int channel, int chunk,
                                std::span<const std::uint32_t> deps, int rail, int slice) {
  return step(from, to, Dir::Send, Combine::None, channel, chunk, -1, deps, rail, slice);
}

std::uint32_t PlanBuilder::recv(int at, int from, int channel, int chunk, Combine combine,
                                std::span<const std::uint32_t> deps, int rail) {
  return step(at, from, Dir::Recv, combine, channel, chunk, -1, deps, rail, 0);
}

int PlanBuilder::add_bundle(std::vector<int> chunks) {
  plan_.bundles.push_back(std::move(chunks));
  return static_cast<int>(plan_.bundles.size() - 1);
}

std::uint32_t PlanBuilder::send_bundle(int from, int to, int channel, int bundle,
                                       std::span<const std::uint32_t> deps, int rail) {
  return step(from, to, Dir::Send, Combine::None, channel,
              plan_.bundles[static_cast<std::size_t>(bundle)].front(), bundle, deps, rail, 0);
}

std::uint32_t PlanBuilder::recv_bundle(int at, int from, int channel, int bundle, Combine combine,
                                       std::span<const std::uint32_t> deps, int rail) {
  return step(at, from, Dir::Recv, combine, channel,
              plan_.bundles[static_cast<std::size_t>(bundle)].front(), bundle, deps, rail, 0);
}

std::uint32_t PlanBuilder::step(int rank, int peer, Dir dir, Combine combine, int channel,
                                int chunk, int bundle, std::span<const std::uint32_t> deps,
                                int rail, int slice) {
  Step s;
  s.peer = peer;
  s.dir = dir;
  s.combine = combine;
  s.slice = static_cast<std::uint8_t>(slice);
  s.channel = channel;
  s.chunk = chunk;
  s.bundle = bundle;
  return add(rank, std::move(s), deps, rail);
}

int PlanBuilder::rail_for(int a, int b, int channel, int rail_override) const {
  // Aggregation agents in the network's switches are reached through their rail's NIC;
  // NVSwitch agents and same-host peers over NVLink.
  const int first_sharp = plan_.n_ranks + static_cast<int>(plan_.switch_host.size());
  if (a >= first_sharp || b >= first_sharp) {
    return plan_.sharp_rails[static_cast<std::size_t>(std::max(a, b) - first_sharp)];
  }
  if (a >= plan_.n_ranks || b >= plan_.n_ranks) return kNoRail;
  if (hosts_.host_index[a] == hosts_.host_index[b]) return kNoRail;
  return rail_override != kNoRail ? rail_override : channel_rail(hosts_, channel);
}

std::uint32_t PlanBuilder::add(int rank, Step step, std::span<const std::uint32_t> deps,
                               int rail_override) {
  std::vector<Step>& list = plan_.steps[static_cast<std::size_t>(rank)];
  const auto index = static_cast<std::uint32_t>(list.size());
  if (step.bundle < 0) {
    step.bytes = plan_.chunks[static_cast<std::size_t>(step.chunk)].bytes;
  } else {
    step.bytes = 0;
    for (const int c : plan_.bundles[static_cast<std::size_t>(step.bundle)]) {
      step.bytes += plan_.chunks[static_cast<std::size_t>(c)].bytes;
    }
  }
  step.wire_bytes = wire_bytes(plan_.proto, step.bytes);
  step.rail = rail_for(rank, step.peer, step.channel, rail_override);
  const std::uint64_t key =
      static_cast<std::uint64_t>(rank) << 40 | static_cast<std::uint64_t>(step.peer) << 16 |
      static_cast<std::uint64_t>(step.channel) << 1 | (step.dir == Dir::Recv ? 1u : 0u);
  Conn& conn = this->conn(key);
  if (!plan_.held.empty() && !plan_.held[static_cast<std::size_t>(rank)]) {
    return brief_step(rank, step, conn);
  }
  if (whole_) {
    if (conn.last >= 0) {
      Step& first = list[static_cast<std::size_t>(conn.last)];
      first.bytes += step.bytes;
      first.wire_bytes += step.wire_bytes;
      return static_cast<std::uint32_t>(conn.last);
    }
    step.slice = 0;
    conn.last = index;
    list.push_back(std::move(step));
    return index;
  }
  step.seq = conn.next_seq++;
  if (conn.last >= 0) {
    std::vector<std::uint32_t>& all = scratch_;
    all.assign(deps.begin(), deps.end());
    all.push_back(static_cast<std::uint32_t>(conn.last));
    step.deps.assign(all);
  } else {
    step.deps.assign(deps);
  }
  conn.last = index;
  list.push_back(std::move(step));
  return index;
}

// A step of a participant this process does not hold: counted in its Brief, with the
// bookkeeping a held one would get (sequence numbers, the index returned for dependencies).
std::uint32_t PlanBuilder::brief_step(int rank, const Step& step, Conn& conn) {
  Brief& brief = plan_.briefs[static_cast<std::size_t>(rank)];
  if (conn.next_seq == 0) {  // the participant's first step on this connection
    const bool send = step.dir == Dir::Send;
    conn.brief = static_cast<std::uint32_t>(brief.conns.size());
    brief.conns.push_back(
        ConnBrief{send ? rank : step.peer, send ? step.peer : rank, step.channel, step.rail, 0, 0});
  }
  if (step.dir == Dir::Send) {
    ConnBrief& cb = brief.conns[conn.brief];
    ++cb.messages;
    cb.bytes += std::max<std::uint64_t>(1, step.wire_bytes) * step.copies;
  }
  ++conn.next_seq;
  return brief.steps++;
}

}  // namespace fabricsim::collectives
