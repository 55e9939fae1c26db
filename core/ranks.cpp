#include "core/ranks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <unistd.h>

#if FABRICSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace fabricsim::core {

namespace {

Ranks& world_ranks() {
  static Ranks w;
  return w;
}

// Where abort() writes: standard error, or the copy of it that quiet_followers() kept.
std::FILE*& abort_stream() {
  static std::FILE* f = stderr;
  return f;
}

#if FABRICSIM_HAVE_MPI
// mpirun (Open MPI), mpiexec.hydra (MPICH) and srun (Slurm's PMI/PMIx) set one of these.
bool launched_by_mpirun() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI: ") + what + " failed");
}
#endif

}  // namespace

const Ranks& Ranks::world() {
  return world_ranks();
}

void Ranks::quiet_followers() const {
  if (rank_ == 0) return;
  const int kept = dup(fileno(stderr));
  if (kept >= 0) {
    if (std::FILE* f = fdopen(kept, "w")) abort_stream() = f;
  }
  // freopen keeps the FILE objects, so std::cout and std::cerr (synchronised with them) follow.
  if (std::freopen("/dev/null", "w", stdout) == nullptr ||
      std::freopen("/dev/null", "w", stderr) == nullptr) {
    throw std::runtime_error("cannot redirect a follower rank's output to /dev/null");
  }
}

#if FABRICSIM_HAVE_MPI

MpiSession::MpiSession(int* argc, char*** argv) {
  if (!launched_by_mpirun()) return;
  // Only the thread that runs the window loop calls MPI; the kernel's workers never do.
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  started_ = true;
  Ranks& w = world_ranks();
  check(MPI_Comm_rank(MPI_COMM_WORLD, &w.rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &w.size_), "MPI_Comm_size");
}

MpiSession::~MpiSession() {
  if (started_) MPI_Finalize();
}

namespace {

template <class T>
T reduce(T local, MPI_Datatype type, MPI_Op op) {
  T out{};
  check(MPI_Allreduce(&local, &out, 1, type, op, MPI_COMM_WORLD), "MPI_Allreduce");
  return out;
}

}  // namespace

Time Ranks::min(Time local) const {
  return size_ == 1 ? local : reduce(local, MPI_INT64_T, MPI_MIN);
}
Time Ranks::max(Time local) const {
  return size_ == 1 ? local : reduce(local, MPI_INT64_T, MPI_MAX);
}
std::uint64_t Ranks::sum(std::uint64_t local) const {
  return size_ == 1 ? local : reduce(local, MPI_UINT64_T, MPI_SUM);
}
std::uint64_t Ranks::max(std::uint64_t local) const {
  return size_ == 1 ? local : reduce(local, MPI_UINT64_T, MPI_MAX);
}
double Ranks::sum(double local) const {
  return size_ == 1 ? local : reduce(local, MPI_DOUBLE, MPI_SUM);
}
double Ranks::max(double local) const {
  return size_ == 1 ? local : reduce(local, MPI_DOUBLE, MPI_MAX);
}

void Ranks::xor_all(std::vector<std::uint64_t>& v) const {
  if (size_ == 1 || v.empty()) return;
  check(MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_BXOR,
                      MPI_COMM_WORLD),
        "MPI_Allreduce");
}

void Ranks::exchange(const std::vector<std::vector<std::byte>>& out,
                     std::vector<std::vector<std::byte>>& in, Time& t) const {
  const auto n = static_cast<std::size_t>(size_);
  if (out.size() != n) throw std::logic_error("Ranks::exchange: one buffer per rank");
  in.resize(n);
  if (size_ == 1) return;
  // Sizes (with `t`, and what this rank sends in all) first, then the bytes in one all-to-all,
  // unless no rank sends any: one or two collectives per window.
  std::vector<std::int64_t> heads(3 * n), got(3 * n);
  std::int64_t sending = 0;
  for (const std::vector<std::byte>& b : out) sending += static_cast<std::int64_t>(b.size());
  std::vector<int> send_counts(n), recv_counts(n), send_displs(n), recv_displs(n);
  std::vector<std::byte> send;
  for (std::size_t r = 0; r < n; ++r) {
    send_displs[r] = static_cast<int>(send.size());
    send_counts[r] = static_cast<int>(out[r].size());
    heads[3 * r] = send_counts[r];
    heads[3 * r + 1] = t;
    heads[3 * r + 2] = sending;
    send.insert(send.end(), out[r].begin(), out[r].end());
  }
  check(MPI_Alltoall(heads.data(), 3, MPI_INT64_T, got.data(), 3, MPI_INT64_T, MPI_COMM_WORLD),
        "MPI_Alltoall");
  std::size_t total = 0;
  std::int64_t anyone = 0;
  for (std::size_t r = 0; r < n; ++r) {
    recv_counts[r] = static_cast<int>(got[3 * r]);
    t = std::min<Time>(t, got[3 * r + 1]);
    anyone += got[3 * r + 2];
    recv_displs[r] = static_cast<int>(total);
    total += static_cast<std::size_t>(recv_counts[r]);
  }
  for (std::vector<std::byte>& b : in) b.clear();
  if (anyone == 0) return;
  std::vector<std::byte> recv(total);
  check(MPI_Alltoallv(send.data(), send_counts.data(), send_displs.data(), MPI_BYTE, recv.data(),
                      recv_counts.data(), recv_displs.data(), MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Alltoallv");
  for (std::size_t r = 0; r < n; ++r) {
    in[r].assign(recv.begin() + recv_displs[r], recv.begin() + recv_displs[r] + recv_counts[r]);
  }
}

void Ranks::abort(const std::string& why) const {
  std::fprintf(abort_stream(), "fabricsim (rank %d of %d): %s\n", rank_, size_, why.c_str());
  std::fflush(abort_stream());
  if (size_ > 1) MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

#else  // one rank: every collective is the identity

MpiSession::MpiSession(int*, char***) {}
MpiSession::~MpiSession() = default;
Time Ranks::min(Time local) const {
  return local;
}
Time Ranks::max(Time local) const {
  return local;
}
std::uint64_t Ranks::sum(std::uint64_t local) const {
  return local;
}
std::uint64_t Ranks::max(std::uint64_t local) const {
  return local;
}
double Ranks::sum(double local) const {
  return local;
}
double Ranks::max(double local) const {
  return local;
}
void Ranks::xor_all(std::vector<std::uint64_t>&) const {}
void Ranks::exchange(const std::vector<std::vector<std::byte>>& out,
                     std::vector<std::vector<std::byte>>& in, Time&) const {
  in.assign(out.size(), {});
}
void Ranks::abort(const std::string& why) const {
  std::fprintf(stderr, "fabricsim: %s\n", why.c_str());
  std::exit(1);
}

#endif

}  // namespace fabricsim::core
