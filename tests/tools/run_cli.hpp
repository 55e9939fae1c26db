#pragma once
// Runs the real fabricsim binary (FABRICSIM_EXE), as a user would, and returns its exit code
// and everything it printed.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

namespace fabricsim::test {

struct Out {
  int status;
  std::string text;
};

inline Out run(const std::string& args) {
  const std::string cmd = std::string(FABRICSIM_EXE) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  Out o{0, {}};
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) o.text.append(buf, n);
  const int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

}  // namespace fabricsim::test
