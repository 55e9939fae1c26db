#pragma once
// The processes of an MPI job. Every rank builds the same simulation and runs a block of its
// logical processes; what crosses ranks (the mailboxes between their LPs) is exchanged at the
// window barrier, together with each rank's earliest pending time, whose least over the ranks
// starts the next window (SST's and ns-3's way: the same window algorithm, not a second kernel). A
// process that mpirun did not start, or a build without MPI (FABRICSIM_MPI off), is one rank, and
// every call here is local.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "core/time.hpp"

namespace fabricsim::core {

class Ranks {
 public:
  // The job this process belongs to: MPI's world once an MpiSession started it, else one rank.
  static const Ranks& world();

  int rank() const { return rank_; }
  int size() const { return size_; }

  // Over every rank (collective: all ranks call them, in the same order).
  Time min(Time local) const;
  Time max(Time local) const;
  std::uint64_t sum(std::uint64_t local) const;
  std::uint64_t max(std::uint64_t local) const;
  double sum(double local) const;
  double max(double local) const;
  // Element-wise XOR into every rank's `v` (same length everywhere).
  void xor_all(std::vector<std::uint64_t>& v) const;
  // After a run, state kept per node (or per port, flow, ...) is current only on the rank that
  // owns the entry: this gives every rank's `items` the owner's value of each entry
  // (`owned(i)` must be true on exactly one rank). Plain data only.
  template <class T, class Owned>
  void take_owners(std::vector<T>& items, Owned owned) const {
    static_assert(std::is_trivially_copyable_v<T>, "take_owners moves plain data");
    if (size_ == 1 || items.empty()) return;
    // The owners' bytes, zero elsewhere, XORed over the ranks: each entry ends as its owner's.
    std::vector<std::uint64_t> words((items.size() * sizeof(T) + 7) / 8, 0);
    auto* bytes = reinterpret_cast<unsigned char*>(words.data());
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (owned(i)) std::memcpy(bytes + i * sizeof(T), &items[i], sizeof(T));
    }
    xor_all(words);
    for (std::size_t i = 0; i < items.size(); ++i) {
      std::memcpy(static_cast<void*>(&items[i]), bytes + i * sizeof(T), sizeof(T));
    }
  }
  // Sends out[r] to rank r (nothing to itself) and fills in[r] with what rank r sent here; `t`
  // becomes the least of every rank's `t` on the way (min() without a collective of its own).
  void exchange(const std::vector<std::vector<std::byte>>& out,
                std::vector<std::vector<std::byte>>& in, Time& t) const;
  // A rank that cannot go on stops the whole job (the others would wait at the next exchange
  // forever): prints `why` on standard error and aborts every rank.
  [[noreturn]] void abort(const std::string& why) const;
  // Every rank meets the same errors and ends with the same results: on ranks other than 0,
  // standard output and standard error go nowhere from here on (abort() still speaks).
  void quiet_followers() const;

 private:
  friend class MpiSession;
  int rank_ = 0;
  int size_ = 1;
};

// The rank that runs LP `lp` of `lps`: contiguous blocks (the partitioners number neighbouring
// LPs together).
inline int rank_of_lp(std::uint32_t lp, std::uint32_t lps, const Ranks& ranks) {
  return static_cast<int>(std::uint64_t{lp} * static_cast<std::uint64_t>(ranks.size()) / lps);
}

// MPI for the life of main(): started when the process was launched by mpirun (Open MPI's,
// MPICH's or Slurm's process-manager variables are set) and the build has MPI; otherwise
// nothing happens and Ranks::world() stays one rank.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

 private:
  [[maybe_unused]] bool started_ = false;  // used only in builds with MPI
};

}  // namespace fabricsim::core
