#pragma once
// Future event list: an implicit 4-ary min-heap ordered by core::before. A 4-ary heap halves
// the depth of a binary heap and keeps a node's children in one or two cache lines.
// Measured on the project's 2-core machine (hold model, `fabricsim bench phold` prints it):
// ~100 ns per hold at 1 K events, ~200 ns at 16 K. A calendar queue with adaptive bucket width
// was tried and was no faster at these sizes, so the simpler heap stays. The network model keeps
// at most one pending event per port and link, so its event lists stay small.
#include <cassert>
#include <cstddef>
#include <vector>

#include "core/event.hpp"

namespace fabricsim::core {

template <class E>
class EventQueue {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void reserve(std::size_t n) { heap_.reserve(n); }
  const E& top() const {
    assert(!heap_.empty());
    return heap_.front();
  }
  Time next_time() const { return heap_.empty() ? kTimeMax : heap_.front().time; }

  void push(const E& e) {
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }

  // Removes the earliest event and returns it.
  E pop() {
    assert(!heap_.empty());
    E out = heap_.front();
    const E last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return out;
  }

 private:
  static constexpr std::size_t kArity = 4;

  void sift_up(std::size_t i) {
    const E e = heap_[i];
    while (i > 0) {
      const std::size_t parent = (i - 1) / kArity;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  // Places `e` (the former last element) into the hole left at the root.
  void sift_down(const E& e) {
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
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<E> heap_;
};

}  // namespace fabricsim::core
