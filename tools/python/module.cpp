// The compiled half of the Python module `fabricsim` (tools/python/fabricsim/__init__.py is the
// other): runs `fabricsim run` in this process, exactly as the command line does, into a folder
// the caller names, and returns what it printed. The Python half reads the folder's files.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/commands.hpp"
#include "tools/scenario.hpp"

namespace py = pybind11;

namespace {

// Sends the process's stdout (where the commands print with printf) into a temporary file for
// its lifetime, and hands back what was written. There is one stdout: runs from several Python
// threads take turns (each swapping it alone would send one's output into another's file, and
// leave stdout pointing at a closed one).
class CaptureStdout {
 public:
  CaptureStdout() : hold_(turn()) {
    std::fflush(stdout);
    file_ = std::tmpfile();
    saved_ = dup(fileno(stdout));
    if (file_ == nullptr || saved_ < 0 || dup2(fileno(file_), fileno(stdout)) < 0) {
      throw std::runtime_error("fabricsim: cannot capture the run's output");
    }
  }
  CaptureStdout(const CaptureStdout&) = delete;
  CaptureStdout& operator=(const CaptureStdout&) = delete;
  ~CaptureStdout() {
    restore();
    if (file_ != nullptr) std::fclose(file_);
  }

  std::string text() {
    restore();
    std::string out;
    std::rewind(file_);
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, file_)) > 0;) out.append(buf, n);
    return out;
  }

 private:
  void restore() {
    if (saved_ < 0) return;
    std::fflush(stdout);
    dup2(saved_, fileno(stdout));
    close(saved_);
    saved_ = -1;
  }
  static std::mutex& turn() {
    static std::mutex m;
    return m;
  }
  std::lock_guard<std::mutex> hold_;
  std::FILE* file_ = nullptr;
  int saved_ = -1;
};

// `fabricsim run SCENARIO --out OUT --quiet --set ...`; returns its printed summary. Scenario
// errors raise ValueError with the command line's message (file:line: key ...), others
// RuntimeError.
std::string run_into(const std::string& scenario, const std::vector<std::string>& sets,
                     const std::string& out) {
  std::vector<std::string> args{scenario, "--out", out, "--quiet"};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  std::string text;
  int status = 0;
  std::string error;
  bool scenario_error = false;
  {
    py::gil_scoped_release free_python;
    CaptureStdout capture;
    try {
      status = fabricsim::tools::cmd_run(args);
    } catch (const fabricsim::tools::ScenarioError& e) {
      error = e.what();
      scenario_error = true;
    } catch (const std::exception& e) {
      error = e.what();
    }
    text = capture.text();
  }
  if (scenario_error) throw py::value_error(error);
  if (!error.empty()) throw std::runtime_error(error);
  if (status != 0) {
    throw std::runtime_error("fabricsim run exited with status " + std::to_string(status) + ":\n" +
                             text);
  }
  return text;
}

}  // namespace

PYBIND11_MODULE(_fabricsim, m) {
  m.doc() = "fabricsim's simulator, run in this process (use the package `fabricsim`)";
  spdlog::set_level(spdlog::level::warn);  // the command line's default --log-level
  m.def("run_into", &run_into, py::arg("scenario"), py::arg("sets"), py::arg("out"),
        "Run a scenario as 'fabricsim run SCENARIO --out OUT --set ...'; returns its summary.");
}
