#pragma once
// A plan step's dependencies: almost always one to three, kept inside the step; longer lists
// (an NVSwitch agent waits for every rank) go to the heap. Plans of a thousand ranks hold tens
// of millions of steps, so a std::vector (24 bytes plus a heap block each) was most of their
// memory and of the time to build them. 16 bytes: the count and three inline entries, whose
// last two hold the heap list's address instead when there are more.
#include <algorithm>
#include <cstdint>
#include <cstring>
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
  Deps(Deps&& o) noexcept : n_(o.n_) {
    std::memcpy(inline_, o.inline_, sizeof inline_);
    o.n_ = 0;
  }
  Deps& operator=(Deps&& o) noexcept {
    if (this != &o) {
      release();
      n_ = o.n_;
      std::memcpy(inline_, o.inline_, sizeof inline_);
      o.n_ = 0;
    }
    return *this;
  }
  ~Deps() { release(); }

  void assign(std::span<const std::uint32_t> d) {
    release();
    std::uint32_t* to = inline_;
    if (d.size() > kInline) {
      to = new std::uint32_t[d.size()];
      std::memcpy(inline_ + 1, &to, sizeof to);
    }
    std::copy(d.begin(), d.end(), to);
    n_ = static_cast<std::uint32_t>(d.size());
  }
  const std::uint32_t* begin() const { return n_ > kInline ? heap() : inline_; }
  const std::uint32_t* end() const { return begin() + n_; }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }

 private:
  static constexpr std::uint32_t kInline = 3;
  std::uint32_t* heap() const {
    std::uint32_t* p;
    std::memcpy(&p, inline_ + 1, sizeof p);
    return p;
  }
  void release() {
    if (n_ > kInline) delete[] heap();
    n_ = 0;
  }
  std::uint32_t n_ = 0;
  std::uint32_t inline_[kInline] = {};
};
static_assert(sizeof(Deps) == 16);

}  // namespace fabricsim::collectives
