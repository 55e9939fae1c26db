#pragma once
// nccl-tests' own stdout, read as a measurement: the result table of an `*_perf` run (size,
// count, type, redop, root, then time, algbw, busbw and #wrong out of place and in place), with
// the collective from its "# Collective test starting:" line and the rank count from its
// "#  Rank" lines where the log has them. Lines tagged by mpirun (`[1,0]<stdout>:`) and
// anything else in the log (NCCL INFO, warnings) are taken as they come. A file that starts
// with '{' is nccl-tests' `-J` JSON output instead: the collective from its argv, the ranks from
// its devices (one per process) x ngpus x nthreads, the rows from its results.
#include <string>
#include <vector>

#include "tools/validate.hpp"

namespace fabricsim::tools {

struct NcclTestsLog {
  std::vector<Measured> rows;  // out-of-place busbw per size, in the log's order
  std::string collective;      // fabricsim's name ("allreduce"); empty if the log does not say
  std::string binary;          // as the log names it ("all_reduce_perf"); empty if it does not
  int ranks = 0;               // "#  Rank" lines; 0 if the log has none
  // GPUs each thread drove (nccl-tests -g): "nGpus" of the "# nThread" header line, or -J's
  // config.ngpus; 0 if the log does not say.
  int gpus_per_thread = 0;
};

// Throws ScenarioError naming the file (and line) when it holds no result row or a row that
// does not parse.
NcclTestsLog read_nccl_tests_log(const std::string& path);

// fabricsim's name of a collective given as nccl-tests names it ("all_reduce_perf_mpi",
// "all_reduce" -> "allreduce"); fabricsim's own names pass through.
std::string fabricsim_collective(std::string name);
// Whether `name` is one of fabricsim's collectives (collectives.op): "allreduce", ...
bool is_collective(const std::string& name);

// True when the file looks like nccl-tests output rather than a CSV dataset.
bool is_nccl_tests_log(const std::string& path);

}  // namespace fabricsim::tools
