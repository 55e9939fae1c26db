#pragma once
// A plan step's dependencies: almost always one to three, kept inside the step; longer lists
// (an NVSwitch agent waits for every rank) go to the heap. Plans of a thousand ranks hold tens
// of millions of steps, so a std::vector (24 bytes plus a heap block each) was most of their
// memory and of the time to build them.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>

namespace fabricsim::collectives {

class Deps {
 public:
  Deps() = default;
  Deps(const Deps& o) { assign(std::span<const std::uint32_t>(o.begin(), o.size())); }
  Deps& operator=(const Deps& o) {
    if (this != &o) assign(std::span<const std::uint32_t>(o.begin(), o.size()));
    return *this;
  }
  Deps(Deps&&) noexcept = default;
  Deps& operator=(Deps&&) noexcept = default;

  void assign(std::span<const std::uint32_t> d) {
    n_ = static_cast<std::uint32_t>(d.size());
    heap_.reset();
    if (n_ > kInline) heap_ = std::make_unique<std::uint32_t[]>(n_);
    std::copy(d.begin(), d.end(), data());
  }
  const std::uint32_t* begin() const { return heap_ ? heap_.get() : inline_; }
  const std::uint32_t* end() const { return begin() + n_; }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

 private:
  static constexpr std::uint32_t kInline = 3;
  std::uint32_t* data() { return heap_ ? heap_.get() : inline_; }
  std::uint32_t n_ = 0;
  std::uint32_t inline_[kInline] = {};
  std::unique_ptr<std::uint32_t[]> heap_;
};

}  // namespace fabricsim::collectives
