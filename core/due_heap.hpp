#pragma once
// When each of a set of items (fluid flows, NVLink transfers) next needs attention, earliest
// first, ties by item id. An item's time changes by pushing an entry with a new version; the
// older entries go stale and are skipped, so nothing is searched or removed mid-heap.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/time.hpp"

namespace fabricsim::core {

class DueHeap {
 public:
  struct Entry {
    Time at;
    std::uint32_t id, version;
  };

  void push(Time at, std::uint32_t id, std::uint32_t version) {
    heap_.push_back({at, id, version});
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  // The earliest entry that `current(id, version)` accepts, after dropping the stale ones
  // before it; nullptr when none is left.
  template <class Current>
  const Entry* top(Current&& current) {
    while (!heap_.empty() && !current(heap_.front().id, heap_.front().version)) pop();
    return heap_.empty() ? nullptr : &heap_.front();
  }
  void pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    heap_.pop_back();
  }

 private:
  static bool later(const Entry& a, const Entry& b) {
    return a.at != b.at ? a.at > b.at : a.id > b.id;
  }
  std::vector<Entry> heap_;
};

}  // namespace fabricsim::core
