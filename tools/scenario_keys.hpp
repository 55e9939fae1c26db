#pragma once
// Every scenario key, registered once: the table it belongs to, its type and unit, its default
// (with the default's source) and what it means. `fabricsim info` prints it, the key tables of
// docs/scenarios.md are generated from it (`fabricsim info --docs`), and tests check it against
// what the readers read: every key they read is registered, and every literal default written
// here is the one they apply.
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
