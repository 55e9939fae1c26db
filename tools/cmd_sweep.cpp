// fabricsim sweep: every point of a scenario's `sweep:` section, each in its own `fabricsim run`
// process, then one CSV row per point.
//
// DIR (--out) holds:
//   sweep_plan.txt     what this folder was started with; a different sweep is refused
//   points/NNNN/       one run's --out: results.json (the mark of a finished point), flows.csv,
//                      ports.csv, run.txt (its stdout), stderr.txt (warnings, if any) or
//                      error.txt (its stderr, when it failed)
//   sweep.csv          written once every point has run: its results, or its error
//   sweep.lock         held while a sweep runs in DIR
//   commands.txt       with --emit: one shell command per point still to run, for a scheduler
//   sweep.sbatch       with --emit slurm: a Slurm job array running commands.txt's lines
#include <fcntl.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <boost/program_options.hpp>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tools/cli_args.hpp"
#include "tools/commands.hpp"
#include "tools/net_report.hpp"
#include "tools/scenario.hpp"
#include "tools/sweep.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fabricsim::tools {
namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// FNV-1a: a stable fingerprint of the scenario text for sweep_plan.txt (std::hash may change
// between builds, and a plan must outlive the binary that wrote it).
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

// A point already finished by an earlier run of the same sweep would be tabulated as if it
// belonged to this one; the plan records everything that decides a point's results.
std::string plan_text(const Sweep& s, const std::string& scenario_text,
                      const std::vector<std::string>& base_sets,
                      const std::vector<std::string>& inputs) {
  std::string out =
      fmt::format("fabricsim sweep plan\nscenario fnv1a {:016x}\n", fnv1a(scenario_text));
  // A changed model or flow-size file changes what the finished points stand for. By name and
  // contents: the paths depend on where the sweep is started from.
  std::vector<std::string> lines;
  for (const std::string& f : inputs) {
    lines.push_back(fmt::format("input {} fnv1a {:016x}\n", fs::path(f).filename().string(),
                                fnv1a(read_file(f))));
  }
  std::sort(lines.begin(), lines.end());
  for (const std::string& line : lines) out += line;
  for (const std::string& set : base_sets) out += "set " + set + "\n";
  for (std::size_t i = 0; i < s.points.size(); ++i) {
    out += fmt::format("point {} {}\n", point_dir(i), point_label(s, i));
  }
  return out;
}

// Two sweeps writing one folder would run the same points twice and race on sweep.csv. The lock
// is released by the kernel when this process ends, however it ends.
class FolderLock {
 public:
  explicit FolderLock(const fs::path& dir) {
    const std::string path = (dir / "sweep.lock").string();
    fd_ = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (fd_ < 0) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd_);
      throw std::runtime_error("another fabricsim sweep is using " + dir.string());
    }
  }
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;
  ~FolderLock() { ::close(fd_); }

 private:
  int fd_ = -1;
};

struct Worker {
  pid_t pid = 0;
  std::size_t point = 0;
};

// The running workers' pids, for the signal handler below (0: a free slot; -j is at most 1024).
std::array<std::atomic<pid_t>, 1024> g_workers{};

// A sweep stopped by a signal (kill, Ctrl-C, a closed terminal, a CI time-out) takes its
// workers with it, then dies of the same signal: no orphan keeps writing into DIR.
extern "C" void stop_workers(int sig) {
  for (std::atomic<pid_t>& w : g_workers) {
    const pid_t pid = w.load();
    if (pid > 0) ::kill(pid, SIGTERM);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void track_worker(pid_t pid, pid_t replace) {
  for (std::atomic<pid_t>& w : g_workers) {
    pid_t expected = replace;
    if (w.compare_exchange_strong(expected, pid)) return;
  }
}

// Starts `fabricsim run` for one point with its stdout and stderr in files of its folder. The
// same executable (/proc/self/exe) runs it, so a rebuild during a sweep cannot mix versions.
pid_t spawn_point(const std::string& scenario, const std::vector<std::string>& sets,
                  const fs::path& dir) {
  fs::create_directories(dir);
  std::vector<std::string> args = {"fabricsim", "run",   scenario,    "--threads",
                                   "1",         "--out", dir.string()};
  for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string out = (dir / "run.txt").string(), err = (dir / "stderr.txt").string();
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&files, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&files, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // The caller blocks stop signals around the spawn; the worker must not inherit that.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &files, &attr, argv.data(), environ);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&files);
  if (rc != 0) {
    throw std::runtime_error(fmt::format("cannot start a worker: {}", std::strerror(rc)));
  }
  return pid;
}

// `text` as one shell word.
std::string shell_quoted(const std::string& text) {
  if (!text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-./=:,+@%") == std::string::npos) {
    return text;
  }
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The shell command that runs point `i` as a worker of this sweep would, with absolute paths,
// so that it runs from any folder of a machine that sees the same files.
std::string point_command(const std::string& scenario, const std::vector<std::string>& sets,
                          const fs::path& dir) {
  std::string cmd = shell_quoted(fs::read_symlink("/proc/self/exe").string()) + " run " +
                    shell_quoted(fs::absolute(scenario).string()) + " --threads 1 --out " +
                    shell_quoted(fs::absolute(dir).string());
  for (const std::string& set : sets) cmd += " --set " + shell_quoted(set);
  const std::string d = shell_quoted(fs::absolute(dir).string());
  return "mkdir -p " + d + " && " + cmd + " > " + d + "/run.txt 2> " + d + "/stderr.txt";
}

std::string describe_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit code {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("killed by signal {}", WTERMSIG(status));
  return fmt::format("wait status {}", status);
}

// The error main() prints comes last, after any warnings.
std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "(no message)";
  const std::size_t nl = text.rfind('\n', end);
  const std::size_t begin = nl == std::string::npos ? 0 : nl + 1;
  return text.substr(begin, end + 1 - begin);
}

// Runs the points in `todo` with at most `jobs` at once; returns how many failed.
std::size_t run_points(const Sweep& s, const std::vector<std::size_t>& todo, unsigned jobs,
                       const std::string& scenario, const std::vector<std::string>& base_sets,
                       const fs::path& points) {
  const std::size_t n = s.points.size();
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) std::signal(sig, stop_workers);
  std::vector<Worker> running;
  std::size_t next = 0, failed = 0;
  while (next < todo.size() || !running.empty()) {
    while (next < todo.size() && running.size() < jobs) {
      const std::size_t i = todo[next++];
      std::vector<std::string> sets = base_sets;
      for (std::string& a : point_sets(s, i)) sets.push_back(std::move(a));
      // Signals wait until the new worker is tracked, so a stop cannot miss it.
      sigset_t stops, before;
      sigemptyset(&stops);
      for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, sig);
      ::sigprocmask(SIG_BLOCK, &stops, &before);
      running.push_back({spawn_point(scenario, sets, points / point_dir(i)), i});
      track_worker(running.back().pid, 0);
      ::sigprocmask(SIG_SETMASK, &before, nullptr);
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for workers: {}", std::strerror(errno)));
    }
    const auto w =
        std::find_if(running.begin(), running.end(), [&](const Worker& x) { return x.pid == pid; });
    if (w == running.end()) continue;
    track_worker(0, pid);
    const std::size_t i = w->point;
    running.erase(w);
    const fs::path dir = points / point_dir(i);
    const fs::path err = dir / "stderr.txt";
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (ok && fs::exists(dir / "results.json")) {
      std::error_code ec;
      if (fs::file_size(err, ec) == 0) fs::remove(err, ec);  // warnings, if any, stay
      std::cerr << fmt::format("point {}/{} done ({})\n", i + 1, n, point_label(s, i));
      continue;
    }
    ++failed;
    std::error_code ec;
    fs::rename(err, dir / "error.txt", ec);
    std::cerr << fmt::format("point {}/{} FAILED, {} ({}): {}\n  see {}\n", i + 1, n,
                             ok ? "no results.json" : describe_status(status), point_label(s, i),
                             last_line(read_file(dir / "error.txt")), (dir / "error.txt").string());
  }
  return failed;
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args) {
  po::options_description opts("fabricsim sweep SCENARIO.yaml [options]");
  std::string scenario, out_dir, emit;
  std::vector<std::string> sets;
  unsigned jobs = 1;
  bool collect = false;
  opts.add_options()("help,h", "show this help")("jobs,j", po::value(&jobs)->default_value(jobs),
                                                 "points run at once, one process each")(
      "out", po::value(&out_dir),
      "output folder (default out/<scenario name>); a re-run into it skips finished points")(
      "set", po::value(&sets)->composing(),
      "override a scenario key at every point: --set simulation.end=1ms")(
      "emit", po::value(&emit),
      "run nothing; write the points still to run as commands for a scheduler: 'list' "
      "(DIR/commands.txt, one shell command a line, e.g. for GNU parallel) or 'slurm' (also "
      "DIR/sweep.sbatch, a job array over those lines). Then --collect")(
      "collect", po::bool_switch(&collect),
      "run nothing; write sweep.csv from the finished points, or say which are missing");
  if (const auto done = parse_scenario_args(
          args, opts, scenario, "fabricsim sweep scenarios/examples/cc_sweep.yaml -j 2",
          "\nEach point runs 'fabricsim run SCENARIO --set <its values> --threads 1 --out "
          "DIR/points/NNNN';\nDIR/sweep.csv has one row per point: its swept values and headline "
          "results.\n")) {
    return *done;
  }
  if (jobs < 1 || jobs > 1024) {
    std::cerr << "fabricsim sweep: -j must be between 1 and 1024\n";
    return 2;
  }
  if (!emit.empty() && emit != "list" && emit != "slurm") {
    std::cerr << "fabricsim sweep: --emit takes 'list' or 'slurm', not '" << emit << "'\n";
    return 2;
  }
  if (collect && !emit.empty()) {
    std::cerr << "fabricsim sweep: --emit writes the commands, --collect gathers their results: "
                 "give one\n";
    return 2;
  }
  if (!fs::is_regular_file(scenario)) {
    throw ScenarioError(scenario + ": cannot open the scenario file");
  }
  const std::string text = read_file(scenario);
  const Sweep s = parse_sweep(text, scenario);
  const std::vector<std::string> inputs = check_points(s, text, scenario, sets);
  const fs::path dir =
      out_dir.empty() ? fs::path("out") / fs::path(scenario).stem() : fs::path(out_dir);
  const fs::path points = dir / "points";
  fs::create_directories(points);
  const FolderLock lock(dir);

  const std::string plan = plan_text(s, text, sets, inputs);
  if (fs::exists(dir / "sweep_plan.txt") && read_file(dir / "sweep_plan.txt") != plan) {
    throw std::runtime_error(fmt::format(
        "{} holds another sweep (its sweep_plan.txt differs: the scenario, a file it reads, "
        "--set or sweep: changed); use another --out or delete it",
        dir.string()));
  }
  write_atomically(dir.string(), "sweep_plan.txt", plan);

  const std::size_t n = s.points.size();
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < n; ++i) {
    if (fs::exists(points / point_dir(i) / "results.json")) {
      std::cerr << fmt::format("point {}/{} skipped, finished earlier ({})\n", i + 1, n,
                               point_label(s, i));
    } else {
      todo.push_back(i);
    }
  }
  // sweep.csv exists only while every point it tabulates does.
  if (!todo.empty()) fs::remove(dir / "sweep.csv");
  if (!emit.empty()) {
    std::string lines;
    for (const std::size_t i : todo) {
      std::vector<std::string> point = sets;
      for (std::string& a : point_sets(s, i)) point.push_back(std::move(a));
      lines += point_command(scenario, point, points / point_dir(i)) + "\n";
    }
    write_atomically(dir.string(), "commands.txt", lines);
    std::printf("wrote %s: %zu of %zu points to run, one command a line\n",
                (dir / "commands.txt").c_str(), todo.size(), n);
    if (emit == "slurm" && !todo.empty()) {  // an array of no tasks is not a job
      const std::string list = shell_quoted(fs::absolute(dir / "commands.txt").string());
      write_atomically(
          dir.string(), "sweep.sbatch",
          fmt::format("#!/bin/bash\n"
                      "# A Slurm job array over the lines of commands.txt: one task a point, one\n"
                      "# CPU each (fabricsim run --threads 1). Submit with: sbatch {}\n"
                      "#SBATCH --job-name=fabricsim-sweep\n"
                      "#SBATCH --array=1-{}\n"
                      "#SBATCH --cpus-per-task=1\n"
                      "set -eu\n"
                      "line=$(sed -n \"${{SLURM_ARRAY_TASK_ID}}p\" {})\n"
                      "exec bash -c \"$line\"\n",
                      shell_quoted(fs::absolute(dir / "sweep.sbatch").string()), todo.size(),
                      list));
      std::printf("wrote %s: sbatch it\n", (dir / "sweep.sbatch").c_str());
    }
    std::string again = "fabricsim sweep " + scenario;
    for (const std::string& set : sets) again += " --set " + shell_quoted(set);
    std::printf("then: %s --out %s --collect\n", again.c_str(), dir.c_str());
    return 0;
  }
  if (collect && !todo.empty()) {
    std::cerr << fmt::format(
        "sweep: {} of {} points have no results.json yet (first: {}); run them, or drop "
        "--collect to run them here\n",
        todo.size(), n, (points / point_dir(todo.front())).string());
    return 1;
  }
  std::cerr << fmt::format("sweep: {} points, {} to run, {} at a time, in {}\n", n, todo.size(),
                           std::min<std::size_t>(jobs, std::max<std::size_t>(todo.size(), 1)),
                           dir.string());
  const std::size_t failed = run_points(s, todo, jobs, scenario, sets, points);
  // A point that failed keeps its row, with its error in place of results: a point that always
  // fails (a run cut off, a fabric that stalls) must not cost the table of the others.
  std::vector<std::vector<std::string>> rows(n);
  std::vector<std::string> errors(n), fields;
  std::size_t first = n;  // the first finished point
  for (std::size_t i = 0; i < n; ++i) {
    const fs::path results = points / point_dir(i) / "results.json";
    if (!fs::exists(results)) {
      const fs::path error = points / point_dir(i) / "error.txt";
      errors[i] = fs::exists(error) ? last_line(read_file(error)) : "no results.json";
      continue;
    }
    const std::string json = read_file(results);
    if (first == n) {
      first = i;
      fields = headline_fields(json);
    }
    if (headline_fields(json) != fields) {
      throw std::runtime_error(fmt::format(
          "{}: point {} has other columns than point {} (its jobs or its kind of run differ)",
          results.string(), i + 1, first + 1));
    }
    rows[i] = read_headline(json, results.string());
  }
  if (first == n) {
    std::cerr << fmt::format("sweep: all {} points failed; sweep.csv not written\n", n);
    return 1;
  }
  write_atomically(dir.string(), "sweep.csv", sweep_csv(s, fields, rows, errors));
  std::printf("wrote %s (%zu points)\n", (dir / "sweep.csv").c_str(), n);
  // Every point's long tables, joined on `point` beside sweep.csv.
  for (const char* table : {"busbw.csv", "flows.csv", "fct_slowdown.csv"}) {
    if (!fs::exists(points / point_dir(first) / table)) continue;
    std::vector<std::string> tables(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (errors[i].empty()) tables[i] = read_file(points / point_dir(i) / table);
    }
    write_atomically(dir.string(), table, long_csv(s, tables, table));
    std::printf("wrote %s (every point's rows)\n", (dir / table).c_str());
  }
  if (failed) {
    std::cerr << fmt::format(
        "sweep: {} of {} points failed; sweep.csv gives their errors (a re-run retries only "
        "them)\n",
        failed, n);
    return 1;
  }
  return 0;
}

}  // namespace fabricsim::tools
