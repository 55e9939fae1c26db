#pragma once
// Every scenario key, registered once: the table it belongs to, its type and unit, its default
// (with the default's source) and what it means. `fabricsim info` prints it, the key tables of
// docs/scenarios.md are generated from it (`fabricsim info --docs`), and the readers take from
// it what each key admits: a count's or size's range, a ratio's interval, a choice's words
// (key_domain; tools/yaml_section.hpp) and every default the registry states as a plain value.
// The defaults the library's own structs hold (net/config.hpp, net/cc/params.hpp, the GPU
// catalog), which the library needs without a scenario, are shown here as values, and a test
// checks that each is the one the readers apply; so do every key read and every key registered.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fabricsim::tools {

// A table of keys: one section, or the keys one choice in a section brings (a topology kind,
// a congestion-control algorithm).
struct KeyTable {
  std::string_view id;
  // Where its keys sit in a scenario, as the readers name paths; "{link}" stands for any link
  // block of `cluster`, "[i]" for any list item.
  std::string_view prefix;
  std::string_view title;
  // A table whose keys this one also takes (a job of `training.jobs` takes `training`'s).
  std::string_view fallback;
  // The default column's heading, when it is not "default" (two variants side by side).
  std::string_view default_heading;
};

// One row of a table, as docs/scenarios.md shows it.
struct KeyInfo {
  std::string_view table;    // KeyTable::id
  std::string_view key;      // the key cell: `name`, or several, in backticks
  std::string_view type;     // type / unit and range
  std::string_view def;      // default and its source ("" in a table without defaults)
  std::string_view meaning;  // what it does
};

// What a row's type cell admits, read from the cell itself, so that a reader accepts exactly
// what `fabricsim info` and docs/scenarios.md state (Section's typed reads look it up by key
// path). Only the cell's leading part counts: a condition after a comma or a semicolon
// ("count >= 1, divides `dp` ...") is the reader's own check, and a bound set by other keys
// ("count 0 to ranks-1", "time > `t_low`") leaves `bounded` false.
struct KeyDomain {
  enum class Kind { kCount, kSize, kTime, kRatio, kRate, kBool, kChoice, kOther };
  Kind kind = Kind::kOther;
  bool bounded = false;
  // Count; size in bytes; time in picoseconds. Inclusive; `hi` is the type's maximum when the
  // cell states no upper bound.
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  double lo_real = 0, hi_real = 0;  // ratio
  bool lo_open = false, hi_open = false;
  std::vector<std::string> options;  // choice
};

// The domain a type cell states ("count 1-1024", "ratio in (0, 1]", "time >= 1ps",
// "choice: `a`, `b`"); kind kOther for cells that are no single value ("link", "section").
KeyDomain key_domain(std::string_view type);

std::span<const KeyTable> key_tables();
std::span<const KeyInfo> key_rows();

// The words of `text` in backticks, in order ("`a`, `b`" -> a, b).
std::vector<std::string> backticked(std::string_view text);

// The key names a row documents: the backticked words of its key cell (`a`, `b` -> a, b);
// none for a row that stands for other tables' keys ("*per kind*").
std::vector<std::string> key_names(const KeyInfo& row);

// The full paths a row documents, list items as "[i]" ("cluster.nic_link.rate", ... for every
// link block; "workload.flows.list[i].src").
std::vector<std::string> key_paths(const KeyInfo& row);

// A path as the readers record it, with list indices as "[i]" ("a.list[12].b" -> "a.list[i].b").
std::string generic_path(std::string_view path);

// The row documenting a key path as the readers record it ("network.dcqcn.g",
// "cluster.nic_link.rate", "workload.flows.list[3].size"); nullptr when none does.
// `prefer`: a table id that wins a tie (the topology kind, for keys several kinds share).
const KeyInfo* find_key(std::string_view path, std::string_view prefer = {});

// The rows whose table or key path starts with `prefix` ("network", "network.dcqcn",
// "cluster.host.gpus"); all rows for "".
std::vector<const KeyInfo*> rows_under(std::string_view prefix);

// Table `id` in Markdown: its header line, separator and rows. "gpus" is the GPU catalog
// (compute/gpu.cpp) with the `collectives` defaults each model implies.
std::string markdown_table(std::string_view id);

// `doc` with every generated block (a line "<!-- keys: ID -->", the table, "<!-- /keys -->")
// re-generated from the registry; throws std::invalid_argument naming an unknown ID or an
// unclosed block.
std::string regenerate_key_tables(const std::string& doc);

}  // namespace fabricsim::tools
