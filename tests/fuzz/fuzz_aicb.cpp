// libFuzzer harness: the AICB/SimAI workload importer on arbitrary text, for a 16-GPU world.
// Malformed or unsupported input is refused with std::invalid_argument ("file:line: ...").
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "workload/aicb_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    fabricsim::workload::import_aicb(in, "fuzz.txt", 16);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
