// libFuzzer harness: the scenario loader on arbitrary YAML text. Any input is either loaded or
// refused with a ScenarioError; a crash, a sanitizer report, a hang or any other exception is a
// bug (libFuzzer reports an escaping exception as a crash).
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    fabricsim::tools::parse_scenario(text, "fuzz.yaml");
  } catch (const fabricsim::tools::ScenarioError&) {
  }
  return 0;
}
