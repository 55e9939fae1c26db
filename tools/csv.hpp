#pragma once
// CSV as RFC 4180 writes it: every text field of every CSV fabricsim writes goes through
// csv_field, so names with commas or quotes (a torus switch "sw(0,1)") stay one field.
#include <string>
#include <string_view>

namespace fabricsim::tools {

// The field as is, or quoted with inner quotes doubled when it holds a comma, quote or newline.
std::string csv_field(std::string_view s);

}  // namespace fabricsim::tools
