#include "core/input_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace fabricsim::core {

void check_input_file(const std::string& path, const char* what, std::uint64_t max_bytes) {
  namespace fs = std::filesystem;
  const auto fail = [&](const std::string& why) {
    throw std::runtime_error(fmt::format("{}: cannot open the {}: {}", path, what, why));
  };
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) fail(ec ? ec.message() : "no such file");
  if (fs::is_directory(st)) fail("it is a directory");
  if (!fs::is_regular_file(st)) fail("it is not a regular file (a device, FIFO or socket?)");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) fail(ec.message());
  if (size > max_bytes) {
    fail(fmt::format("it is {} bytes, above the {}-byte limit for a {}", size, max_bytes, what));
  }
}

}  // namespace fabricsim::core
