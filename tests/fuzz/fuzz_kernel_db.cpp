// libFuzzer harness: the kernel-timing database reader on arbitrary CSV text. A bad file is
// refused with std::runtime_error ("file:line: ...").
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

#include "compute/kernel_db.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    fabricsim::compute::KernelDb::parse(in, "fuzz.csv");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
