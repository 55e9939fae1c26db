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

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        out.back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.emplace_back();
    } else if (c != '\r') {
      out.back() += c;
    }
  }
  return out;
}

}  // namespace fabricsim::core
