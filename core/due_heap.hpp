#pragma once
// When each of a set of items (fluid flows, NVLink transfers) next needs attention, earliest
// first, ties by item id. Each item has at most one entry, which moves in place when its time
// changes: a fluid model re-times most of its items at every change, and stale copies left in
// the heap would outnumber the live ones.
#include <cstdint>
#include <vector>

#include "core/time.hpp"

namespace fabricsim::core {

class DueHeap {
 public:
  struct Entry {
    Time at;
    std::uint32_t id;
  };

  // Item `id` is due at `at` (inserted, or moved from its earlier time).
  void set(std::uint32_t id, Time at) {
    if (id >= pos_.size()) pos_.resize(id + 1, kAbsent);
    std::uint32_t i = pos_[id];
    if (i == kAbsent) {
      i = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back({at, id});
      pos_[id] = i;
      up(i);
      return;
    }
    const bool earlier = before(Entry{at, id}, heap_[i]);
    heap_[i].at = at;
    if (earlier) {
      up(i);
    } else {
      down(i);
    }
  }
  // Item `id` is due no more (nothing happens if it was not).
  void erase(std::uint32_t id) {
    if (id >= pos_.size() || pos_[id] == kAbsent) return;
    remove_at(pos_[id]);
  }
  // The earliest entry; nullptr when none is left.
  const Entry* top() const { return heap_.empty() ? nullptr : &heap_.front(); }
  void pop() { remove_at(0); }

 private:
  static constexpr std::uint32_t kAbsent = ~0u;

  static bool before(const Entry& a, const Entry& b) {
    return a.at != b.at ? a.at < b.at : a.id < b.id;
  }
  void place(std::uint32_t i, const Entry& e) {
    heap_[i] = e;
    pos_[e.id] = i;
  }
  void up(std::uint32_t i) {
    const Entry e = heap_[i];
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (!before(e, heap_[parent])) break;
      place(i, heap_[parent]);
      i = parent;
    }
    place(i, e);
  }
  void down(std::uint32_t i) {
    const Entry e = heap_[i];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      std::uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], e)) break;
      place(i, heap_[child]);
      i = child;
    }
    place(i, e);
  }
  void remove_at(std::uint32_t i) {
    pos_[heap_[i].id] = kAbsent;
    const Entry last = heap_.back();
    heap_.pop_back();
    if (i == heap_.size()) return;
    const bool earlier = before(last, heap_[i]);
    place(i, last);
    if (earlier) {
      up(i);
    } else {
      down(i);
    }
  }

  std::vector<Entry> heap_;
  std::vector<std::uint32_t> pos_;  // per id: its index in heap_, or kAbsent
};

}  // namespace fabricsim::core
