#pragma once
// Single-producer single-consumer mailbox between two logical processes, double-buffered by
// round parity: during round r the producer appends to buffer r%2 while the consumer drains
// buffer (r-1)%2, filled in the previous round. The window barrier between rounds is the only
// synchronisation, so pushing and draining need no locks and no atomics.
#include <cstdint>
#include <vector>

namespace fabricsim::core {

template <class E>
class Mailbox {
 public:
  void push(std::uint64_t round, const E& e) { buf_[round & 1].events.push_back(e); }

  // The buffer producers append to during round `round`: what an MPI rank hands to the rank of
  // the consumer after the round, and where that rank puts it (core/ranks.hpp).
  std::vector<E>& written(std::uint64_t round) { return buf_[round & 1].events; }

  // What was sent during round `round - 1` and not drained yet, in order (drain empties it).
  const E* pending(std::uint64_t round) const { return buf_[(round + 1) & 1].events.data(); }

  // Hands every event sent during round `round - 1` to `f`, then empties that buffer (its
  // capacity is kept, so a steady state allocates nothing).
  template <class F>
  std::size_t drain(std::uint64_t round, F&& f) {
    std::vector<E>& b = buf_[(round + 1) & 1].events;
    for (const E& e : b) f(e);
    const std::size_t n = b.size();
    b.clear();
    return n;
  }

 private:
  // The producer's and the consumer's buffer on separate cache lines: they are written by two
  // threads in the same round.
  struct alignas(64) Buffer {
    std::vector<E> events;
  };
  Buffer buf_[2];
};

}  // namespace fabricsim::core
