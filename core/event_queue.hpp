#pragma once
// Future event list: an implicit 4-ary min-heap of small keys ordered by core::before, with
// the events themselves in slots beside it (fixed blocks, so an event never moves while a
// handler reads it in place). Sifting moves 24-byte keys whatever the payload (a network event
// carries a whole packet, ~200 bytes); a 4-ary heap halves the depth of a binary one and keeps
// a node's children in one or two cache lines. A key packs the order (time, source, sequence)
// into one 128-bit number, so a comparison is one branch-free subtract instead of up to three
// unpredictable branches (S4 took 13% less time for it).
// Taking the earliest event out leaves a hole at the root that the next insertion fills, sifting
// the new key down from there: a handler usually schedules an event of its own (a link's next
// packet, a port's next frame), and one sift then replaces two (the heap's last key sifted down
// from the root, the new key sifted up). Keys are unique, so the order events come out in does
// not depend on the heap's layout.
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
  bool empty() const { return size() == 0; }
  std::size_t size() const { return heap_.size() - (hole_ ? 1 : 0); }
  void reserve(std::size_t n) {
    heap_.reserve(n);
    while (blocks_.size() * kBlock < n) blocks_.push_back(std::make_unique<E[]>(kBlock));
  }
  Time next_time() {
    settle();
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
    insert(Key{static_cast<std::uint64_t>(time), std::uint64_t{src} << kSeqBits | seq, slot});
  }
  void push(const E& e) { emplace(e.time, e.src, e.dst, e.seq, e.kind, e.payload); }

  // A key without an event slot: `ref` names an event kept elsewhere (the head of a FIFO
  // channel, core/simulation.hpp), ordered as an event of (time, src, seq) would be. pop_slot
  // returns it with kExternal set; it is never released.
  static constexpr std::uint32_t kExternal = std::uint32_t{1} << 31;
  void push_external(Time time, NodeId src, std::uint64_t seq, std::uint32_t ref) {
    assert(time >= 0 && (std::uint64_t{src} >> kSrcBits) == 0 && (seq >> kSeqBits) == 0 &&
           ref < kExternal);
    insert(Key{static_cast<std::uint64_t>(time), std::uint64_t{src} << kSeqBits | seq,
               ref | kExternal});
  }

  // Takes the earliest event out of the order and returns its slot: the event stays where it is
  // (at(slot)), so a handler reads it without a copy, until release(slot). Slots live in fixed
  // blocks, so pushing more events never moves it.
  std::uint32_t pop_slot() {
    settle();
    assert(!heap_.empty());
    hole_ = true;
    return heap_.front().slot;
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

  void insert(const Key& k) {
    if (hole_) {
      hole_ = false;
      sift_down(k);
      return;
    }
    heap_.push_back(k);
    sift_up(heap_.size() - 1);
  }

  // Fills the root's hole, if any, with the last key.
  void settle() {
    if (!hole_) return;
    hole_ = false;
    const Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
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

  // Places `k` into the hole at the root.
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
  bool hole_ = false;  // heap_[0] was popped and awaits the next key (insert or settle)
};

}  // namespace fabricsim::core
