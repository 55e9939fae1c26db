#pragma once
// A slab of T addressed by 32-bit handles, with a free list. One pool per LP (only its own
// thread touches it), so allocation is a vector pop and never a heap allocation once warm.
#include <cassert>
#include <cstdint>
#include <vector>

namespace fabricsim::core {

template <class T>
class Pool {
 public:
  using Handle = std::uint32_t;

  Handle alloc() {
    if (!free_.empty()) {
      const Handle h = free_.back();
      free_.pop_back();
      return h;
    }
    items_.emplace_back();
    return static_cast<Handle>(items_.size() - 1);
  }
  void release(Handle h) {
    assert(h < items_.size());
    free_.push_back(h);
  }
  T& operator[](Handle h) { return items_[h]; }
  const T& operator[](Handle h) const { return items_[h]; }
  std::size_t live() const { return items_.size() - free_.size(); }
  std::size_t capacity() const { return items_.size(); }

 private:
  std::vector<T> items_;
  std::vector<Handle> free_;
};

}  // namespace fabricsim::core
