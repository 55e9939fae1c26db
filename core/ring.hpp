#pragma once
// A FIFO on a power-of-two ring that grows and never shrinks: after warm-up, pushing and
// popping allocate nothing. Used for port queues and links.
#include <cassert>
#include <cstddef>
#include <vector>

namespace fabricsim::core {

template <class T>
class Ring {
 public:
  bool empty() const { return head_ == tail_; }
  std::size_t size() const { return tail_ - head_; }
  T& front() {
    assert(!empty());
    return buf_[head_ & (buf_.size() - 1)];
  }
  const T& front() const {
    assert(!empty());
    return buf_[head_ & (buf_.size() - 1)];
  }
  T& back() {
    assert(!empty());
    return buf_[(tail_ - 1) & (buf_.size() - 1)];
  }
  const T& back() const {
    assert(!empty());
    return buf_[(tail_ - 1) & (buf_.size() - 1)];
  }
  void push(const T& v) {
    if (size() == buf_.size()) grow();
    buf_[tail_++ & (buf_.size() - 1)] = v;
  }
  void pop() {
    assert(!empty());
    ++head_;
  }

 private:
  void grow() {
    std::vector<T> bigger(buf_.empty() ? 8 : buf_.size() * 2);
    for (std::size_t i = 0; i < size(); ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
    tail_ = size();
    head_ = 0;
    buf_.swap(bigger);
  }
  std::vector<T> buf_;
  std::size_t head_ = 0, tail_ = 0;
};

}  // namespace fabricsim::core
