#pragma once
// The event record and its total order.
#include <cstdint>

#include "core/time.hpp"

namespace fabricsim::core {

using NodeId = std::uint32_t;
using LpId = std::uint32_t;
using EventKind = std::uint32_t;  // the model's own small enum

// A plain record; Payload is the model's (trivially copyable) data.
template <class Payload>
struct Event {
  Time time;
  NodeId src;         // node whose handler scheduled it: part of the ordering key
  NodeId dst;         // node that handles it
  std::uint64_t seq;  // per-source-node sequence number: part of the ordering key
  EventKind kind;
  Payload payload;
};

// Events are ordered by (time, source node, per-source sequence). Each node belongs to exactly
// one logical process and numbers its own events, so this order, and hence every result, does
// not depend on the partition into LPs or on the number of threads.
template <class E>
inline bool before(const E& a, const E& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.src != b.src) return a.src < b.src;
  return a.seq < b.seq;
}

}  // namespace fabricsim::core
