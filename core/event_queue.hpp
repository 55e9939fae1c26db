#pragma once
// Future event list: an implicit 4-ary min-heap of small keys ordered by core::before, with
// the events themselves in slots beside it (fixed blocks, so an event never moves while a
// handler reads it in place). Sifting moves 24-byte keys whatever the payload (a network event
// carries a whole packet, ~200 bytes); a 4-ary heap halves the depth of a binary one and keeps
// a node's children in one or two cache lines. A key packs the order (time, source, sequence)
// into one 128-bit number, so a comparison is one branch-free subtract instead of up to three
// unpredictable branches (S4 took 13% less time for it).
// `fabricsim bench phold` prints the hold time at 1 K events: ~75 ns on the AMD EPYC machine
// of 2026-11-23, ~180 ns on the earlier Xeon. A calendar queue with adaptive bucket width was
// tried and was no faster at these sizes, so the simpler heap stays. The network model keeps at
// most one pending event per port and link, so its event lists stay small.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#include "core/event.hpp"

namespace fabricsim::core {

template <class E>
class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) {
    heap_.reserve(n);
    while (blocks_.size() * kBlock < n) blocks_.push_back(std::make_unique<E[]>(kBlock));
  }
  Time next_time() const {
    return heap_.empty() ? kTimeMax : static_cast<Time>(heap_.front().time);
  }

  // The packed key needs sources below 2^kSrcBits and sequence numbers below 2^kSeqBits; the
  // kernel checks both (core/simulation.hpp).
  static constexpr int kSrcBits = 22;
  static constexpr int kSeqBits = 64 - kSrcBits;

  // Builds the event in its slot (one copy of the payload, not two).
  template <class Payload>
  void emplace(Time time, NodeId src, NodeId dst, std::uint64_t seq, EventKind kind,
               const Payload& payload) {
    assert(time >= 0 && (std::uint64_t{src} >> kSrcBits) == 0 && (seq >> kSeqBits) == 0);
    std::uint32_t slot;
    if (free_.empty()) {
      slot = used_++;
      if (slot == blocks_.size() * kBlock) blocks_.push_back(std::make_unique<E[]>(kBlock));
    } else {
      slot = free_.back();
      free_.pop_back();
    }
    new (&slot_ref(slot)) E{time, src, dst, seq, kind, payload};
    heap_.push_back(
        Key{static_cast<std::uint64_t>(time), std::uint64_t{src} << kSeqBits | seq, slot});
    sift_up(heap_.size() - 1);
  }
  void push(const E& e) { emplace(e.time, e.src, e.dst, e.seq, e.kind, e.payload); }

  // A key without an event slot: `ref` names an event kept elsewhere (the head of a FIFO
  // channel, core/simulation.hpp), ordered as an event of (time, src, seq) would be. pop_slot
  // returns it with kExternal set; it is never released.
  static constexpr std::uint32_t kExternal = std::uint32_t{1} << 31;
  void push_external(Time time, NodeId src, std::uint64_t seq, std::uint32_t ref) {
    assert(time >= 0 && (std::uint64_t{src} >> kSrcBits) == 0 && (seq >> kSeqBits) == 0 &&
           ref < kExternal);
    heap_.push_back(Key{static_cast<std::uint64_t>(time), std::uint64_t{src} << kSeqBits | seq,
                        ref | kExternal});
    sift_up(heap_.size() - 1);
  }

  // Takes the earliest event out of the order and returns its slot: the event stays where it is
  // (at(slot)), so a handler reads it without a copy, until release(slot). Slots live in fixed
  // blocks, so pushing more events never moves it.
  std::uint32_t pop_slot() {
    assert(!heap_.empty());
    const std::uint32_t slot = heap_.front().slot;
    const Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return slot;
  }
  const E& at(std::uint32_t slot) const { return blocks_[slot / kBlock][slot % kBlock]; }
  void release(std::uint32_t slot) { free_.push_back(slot); }

  // Removes the earliest event and returns it.
  E pop() {
    const std::uint32_t slot = pop_slot();
    release(slot);
    return at(slot);
  }

 private:
  static constexpr std::size_t kArity = 4;
  struct Key {            // the ordering fields of core::before, and where the event is
    std::uint64_t time;   // never negative
    std::uint64_t order;  // source << kSeqBits | sequence
    std::uint32_t slot;
  };
  static bool before(const Key& a, const Key& b) {
    using U = unsigned __int128;
    return (U{a.time} << 64 | a.order) < (U{b.time} << 64 | b.order);
  }

  void sift_up(std::size_t i) {
    const Key k = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(k, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = k;
  }

  // Places `k` (the former last key) into the hole left at the root.
  void sift_down(const Key& k) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      const std::size_t first = i * kArity + 1;
      if (first >= n) break;
      const std::size_t last = first + kArity < n ? first + kArity : n;
      std::size_t best = first;
      for (std::size_t c = first + 1; c < last; ++c) {
        if (before(heap_[c], heap_[best])) best = c;
      }
      if (!before(heap_[best], k)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = k;
  }

  E& slot_ref(std::uint32_t slot) { return blocks_[slot / kBlock][slot % kBlock]; }

  static constexpr std::uint32_t kBlock = 256;  // events per block of slots
  std::vector<Key> heap_;
  std::vector<std::unique_ptr<E[]>> blocks_;
  std::uint32_t used_ = 0;  // slots ever handed out
  std::vector<std::uint32_t> free_;
};

}  // namespace fabricsim::core
