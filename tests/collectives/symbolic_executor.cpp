#include "symbolic_executor.hpp"

#include <deque>
#include <unordered_map>

namespace fabricsim::collectives::test {
namespace {

Mask all_ranks(int n) {
  return n >= 64 ? ~Mask{0} : (Mask{1} << n) - 1;
}
Mask bit(int r) {
  return Mask{1} << r;
}

struct Conn {
  std::vector<int> has_data;            // by seq
  std::vector<std::vector<Mask>> data;  // per chunk of the message
  std::vector<int> recv_done;
  std::vector<int> parked_recv;  // step index waiting for data, -1
  std::vector<int> parked_send;  // by the seq of the receive it waits for
  std::vector<std::uint64_t> bytes;
  std::vector<std::vector<int>> chunks;
  void grow(std::size_t seq) {
    if (has_data.size() > seq) return;
    has_data.resize(seq + 1, 0);
    data.resize(seq + 1);
    recv_done.resize(seq + 1, 0);
    parked_recv.resize(seq + 1, -1);
    parked_send.resize(seq + 1, -1);
    bytes.resize(seq + 1, 0);
    chunks.resize(seq + 1);
  }
};

// The chunks a step carries: its bundle's, or its own.
std::vector<int> chunks_of(const Plan& plan, const Step& s) {
  if (s.bundle < 0) return {s.chunk};
  return plan.bundles[static_cast<std::size_t>(s.bundle)];
}

}  // namespace

std::vector<std::vector<Mask>> initial_state(const Plan& plan, int root) {
  std::vector<std::vector<Mask>> s(plan.steps.size(), std::vector<Mask>(plan.chunks.size(), 0));
  for (int r = 0; r < plan.n_ranks; ++r) {
    for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
      const Chunk& ch = plan.chunks[c];
      switch (plan.op) {
        case Op::AllReduce:
        case Op::ReduceScatter:
        case Op::Reduce:
          s[r][c] = bit(r);
          break;
        case Op::AllGather:
        case Op::AllToAll:
        case Op::SendRecv:
          s[r][c] = ch.owner == r ? bit(r) : 0;
          break;
        case Op::Broadcast:
          s[r][c] = r == root ? bit(r) : 0;
          break;
      }
    }
  }
  return s;
}

Execution execute(const Plan& plan, std::vector<std::vector<Mask>> state) {
  Execution ex;
  const std::size_t parts = plan.steps.size();
  ex.sent_bytes.assign(parts, 0);
  ex.sends.assign(parts, 0);
  std::vector<std::vector<int>> missing(parts);
  std::vector<std::vector<std::vector<std::uint32_t>>> dependents(parts);
  std::deque<std::pair<int, int>> ready;  // (participant, step) with deps done
  std::size_t total = 0, done = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    const auto& steps = plan.steps[p];
    total += steps.size();
    missing[p].resize(steps.size());
    dependents[p].resize(steps.size());
    for (std::size_t i = 0; i < steps.size(); ++i) {
      for (std::uint32_t d : steps[i].deps) {
        if (d >= i) {
          ex.error = "participant " + std::to_string(p) + " step " + std::to_string(i) +
                     " depends on a later step " + std::to_string(d);
          return ex;
        }
        dependents[p][d].push_back(static_cast<std::uint32_t>(i));
      }
      missing[p][i] = static_cast<int>(steps[i].deps.size());
      if (missing[p][i] == 0) ready.emplace_back(static_cast<int>(p), static_cast<int>(i));
    }
  }
  std::unordered_map<std::uint64_t, Conn> conns;
  const auto conn = [&](int from, int to, int channel) -> Conn& {
    return conns[static_cast<std::uint64_t>(from) << 40 | static_cast<std::uint64_t>(to) << 16 |
                 static_cast<std::uint64_t>(channel)];
  };
  const auto finish = [&](int p, int i) {
    ++done;
    for (std::uint32_t d : dependents[p][i]) {
      if (--missing[p][d] == 0) ready.emplace_back(p, static_cast<int>(d));
    }
  };
  while (!ready.empty() && ex.error.empty()) {
    const auto [p, i] = ready.front();
    ready.pop_front();
    const Step& s = plan.steps[p][i];
    if (s.dir == Dir::Send) {
      Conn& c = conn(p, s.peer, s.channel);
      c.grow(static_cast<std::size_t>(s.seq));
      const int wait = s.seq - plan.credits;
      if (wait >= 0) {
        c.grow(static_cast<std::size_t>(wait));
        if (!c.recv_done[wait]) {
          c.parked_send[wait] = i;  // one send waits on a given slot
          continue;
        }
      }
      std::vector<Mask>& out = c.data[s.seq];
      for (const int ch : chunks_of(plan, s)) {
        out.push_back(state[p][ch]);
        if (out.back() == 0) {
          ex.error = "participant " + std::to_string(p) + " sends chunk " + std::to_string(ch) +
                     " it does not hold";
        }
      }
      if (!ex.error.empty()) break;
      c.has_data[s.seq] = 1;
      c.bytes[s.seq] = s.bytes;
      c.chunks[s.seq] = chunks_of(plan, s);
      ex.sent_bytes[p] += s.bytes;
      ++ex.sends[p];
      finish(p, i);
      if (c.parked_recv[s.seq] >= 0) ready.emplace_back(s.peer, c.parked_recv[s.seq]);
      continue;
    }
    Conn& c = conn(s.peer, p, s.channel);
    c.grow(static_cast<std::size_t>(s.seq));
    if (!c.has_data[s.seq]) {
      c.parked_recv[s.seq] = i;
      continue;
    }
    if (c.bytes[s.seq] != s.bytes || c.chunks[s.seq] != chunks_of(plan, s)) {
      ex.error = "participant " + std::to_string(p) + " step " + std::to_string(i) +
                 " does not match its send (chunk/bytes)";
      break;
    }
    const std::vector<int>& chunks = c.chunks[s.seq];
    for (std::size_t k = 0; k < chunks.size() && ex.error.empty(); ++k) {
      Mask& mine = state[p][chunks[k]];
      const Mask in = c.data[s.seq][k];
      if (s.combine == Combine::Reduce && (mine & in) != 0) {
        ex.error = "participant " + std::to_string(p) + " reduces chunk " +
                   std::to_string(chunks[k]) + " twice over a rank";
      }
      mine = s.combine == Combine::Reduce ? mine | in : in;
    }
    if (!ex.error.empty()) break;
    c.recv_done[s.seq] = 1;
    finish(p, i);
    if (c.parked_send[s.seq] >= 0) ready.emplace_back(s.peer, c.parked_send[s.seq]);
  }
  if (ex.error.empty() && done != total) {
    ex.error = "deadlock: " + std::to_string(total - done) + " of " + std::to_string(total) +
               " steps never ran";
  }
  if (ex.error.empty()) {
    for (const auto& [key, c] : conns) {
      for (std::size_t s = 0; s < c.has_data.size(); ++s) {
        if (c.has_data[s] && !c.recv_done[s]) ex.error = "a send has no matching receive";
      }
    }
  }
  ex.state = std::move(state);
  return ex;
}

std::string check_result(const Plan& plan, const Execution& ex, int root) {
  if (!ex.error.empty()) return ex.error;
  const Mask full = all_ranks(plan.n_ranks);
  for (int r = 0; r < plan.n_ranks; ++r) {
    for (std::size_t c = 0; c < plan.chunks.size(); ++c) {
      const Chunk& ch = plan.chunks[c];
      const Mask got = ex.state[r][c];
      Mask want = got;
      switch (plan.op) {
        case Op::AllReduce:
          want = full;
          break;
        case Op::ReduceScatter:
          if (ch.owner == r) want = full;
          break;
        case Op::AllGather:
          want = bit(ch.owner);
          break;
        case Op::Broadcast:
          want = bit(root);
          break;
        case Op::Reduce:
          if (r == root) want = full;
          break;
        case Op::AllToAll:
        case Op::SendRecv:
          if (ch.dest == r) want = bit(ch.owner);
          break;
      }
      if (got != want) {
        return "rank " + std::to_string(r) + " chunk " + std::to_string(c) + " holds " +
               std::to_string(got) + ", expected " + std::to_string(want);
      }
    }
  }
  return {};
}

}  // namespace fabricsim::collectives::test
