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
  void push(std::uint64_t round, const E& e) { slot(round) = e; }
  // A slot at the end of this round's buffer for the caller to fill in place: slots are reused
  // from round to round, never constructed again, so filling part of one costs only that part.
  E& slot(std::uint64_t round) {
    Buffer& b = buf_[round & 1];
    if (b.used == b.events.size()) b.events.emplace_back();
    return b.events[b.used++];
  }

  // What was sent during round `round - 1` and not drained yet, in order (drain empties it).
  const E* pending(std::uint64_t round) const { return buf_[(round + 1) & 1].events.data(); }

  // Hands every event sent during round `round - 1` to `f`, then empties that buffer (its
  // slots are kept, so a steady state allocates nothing).
  template <class F>
  std::size_t drain(std::uint64_t round, F&& f) {
    Buffer& b = buf_[(round + 1) & 1];
    const std::size_t n = b.used;
    for (std::size_t i = 0; i < n; ++i) f(b.events[i]);
    b.used = 0;
    return n;
  }

 private:
  // The producer's and the consumer's buffer on separate cache lines: they are written by two
  // threads in the same round.
  struct alignas(64) Buffer {
    std::vector<E> events;  // the first `used` are this round's
    std::size_t used = 0;
  };
  Buffer buf_[2];
};

}  // namespace fabricsim::core
