// libFuzzer harness: the Chakra trace readers (binary and JSON) on arbitrary bytes, and what
// decodes built into a DAG with the same trace on two ranks. Malformed or unsupported input is
// refused with std::invalid_argument ("file: node N: ...").
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "workload/chakra_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fabricsim::workload;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const ChakraTrace t = read_chakra_trace(in, "fuzz.0.et");
    build_chakra_dag({t, t}, {});
  } catch (const std::invalid_argument&) {
  }
  // The same bytes as the JSON form (the jsonizer's).
  std::istringstream json(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const ChakraTrace t = read_chakra_json_trace(json, "fuzz.0.json");
    build_chakra_dag({t, t}, {});
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
