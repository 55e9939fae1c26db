#include "tools/scenario_keys.hpp"

#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/protocol.hpp"
#include "tools/scenario.hpp"
#include "tools/units.hpp"

using namespace fabricsim;
using namespace fabricsim::tools;
namespace fs = std::filesystem;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The literal defaults a default cell states: when it opens with a value in backticks, every
// backticked word in it (variants side by side, `connectx` / `paper`; conditions, `2` with
// `interleaved`, else `1`). A cell that opens with words ("required", "the model's NVLink
// bandwidth ...") states none.
std::vector<std::string> literals(std::string_view cell) {
  return cell.starts_with('`') ? backticked(cell) : std::vector<std::string>{};
}

// Whether a row documents the key at `path` (list items as "[i]") or a section, list or link
// block that holds it.
bool covers(const KeyInfo& row, const std::string& path) {
  for (const std::string& full : key_paths(row)) {
    if (path == full || path.starts_with(full + ".") || path.starts_with(full + "[")) return true;
  }
  return false;
}

// Whether a stated default and a value the reader applied are the same quantity: as a time, a
// size, a rate or a number when both read as one, else as text.
bool same(const std::string& stated, const std::string& applied) {
  if (stated == applied) return true;
  const auto both = [&](auto parse) {
    try {
      return parse(stated) == parse(applied);
    } catch (const std::exception&) {
      return false;
    }
  };
  return both([](const std::string& t) { return parse_time(t); }) ||
         both([](const std::string& t) { return parse_bytes(t); }) ||
         both([](const std::string& t) { return parse_rate(t); }) || both([](const std::string& t) {
           std::size_t used = 0;
           const double v = std::stod(t, &used);
           if (used != t.size()) throw std::invalid_argument(t);
           return v;
         });
}

// Every scenario the repository ships, and the probes that reach the keys no shipped scenario
// sets (tests/data/key_probes/).
std::vector<fs::path> scenarios() {
  std::vector<fs::path> out;
  for (const char* dir : {"scenarios", "tests/data/key_probes"}) {
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const fs::path& p = e.path();
      if (p.extension() != ".yaml" || p.filename() == "manifest.yaml") continue;
      if (p.parent_path().filename() == "flow_sizes") continue;
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string topology_of(const Scenario& sc) {
  for (const ResolvedKey& r : sc.read) {
    if (r.key == "cluster.topology") return r.value == "mesh" ? "torus" : r.value;
  }
  return "";
}

}  // namespace

TEST_CASE("key registry: docs/scenarios.md's key tables are generated from it", "[tools][keys]") {
  const std::string doc = read_file("docs/scenarios.md");
  REQUIRE(doc.find("<!-- keys: network -->") != std::string::npos);
  // 'fabricsim info --docs docs/scenarios.md --write' regenerates them.
  REQUIRE(regenerate_key_tables(doc) == doc);
  REQUIRE_THROWS_WITH(regenerate_key_tables("<!-- keys: nosuch -->\n<!-- /keys -->\n"),
                      Catch::Contains("no key table 'nosuch'"));
  REQUIRE_THROWS_WITH(regenerate_key_tables("a\n<!-- keys: network -->\n| x |\n"),
                      Catch::Contains("line 2") && Catch::Contains("no '<!-- /keys -->'"));
}

TEST_CASE("key registry: lookups by the paths the readers record", "[tools][keys]") {
  REQUIRE(find_key("network.dcqcn.g") != nullptr);
  REQUIRE(find_key("network.dcqcn.g")->table == "dcqcn");
  REQUIRE(find_key("cluster.host.gpus")->table == "host");
  REQUIRE(find_key("cluster.uplink.rate")->table == "link");
  REQUIRE(find_key("workload.flows.list[12].size")->table == "flows");
  REQUIRE(find_key("cluster.links[0].a")->table == "custom");
  // A job's keys are the training section's, and its own.
  REQUIRE(find_key("training.jobs[1].tp")->table == "training");
  REQUIRE(find_key("training.jobs[1].hosts")->table == "jobs");
  // Several topology kinds share a key; the kind named wins.
  REQUIRE(find_key("cluster.spines", "rail_optimized")->table == "rail_optimized");
  REQUIRE(find_key("network.nosuch") == nullptr);
  REQUIRE(find_key("nosuch.mtu") == nullptr);
  REQUIRE(rows_under("network.dcqcn").size() >= 16);
  REQUIRE(rows_under("network.nosuch").empty());
}

TEST_CASE("key registry: every key the readers read is registered, with the default they apply",
          "[tools][keys]") {
  std::set<std::string> paths;
  int loaded = 0;
  for (const fs::path& file : scenarios()) {
    INFO(file.string());
    Scenario sc;
    try {
      sc = load_scenario(file.string());
    } catch (const std::exception& e) {
      // Scenarios whose models or data live elsewhere are out of this test's reach.
      FAIL_CHECK(e.what());
      continue;
    }
    ++loaded;
    const std::string kind = topology_of(sc);
    // Every key a section accepts is registered, read or not (a section's own name, such as
    // workload.flows, is a table's prefix instead).
    for (const std::string& a : sc.allowed) {
      if (a.find('.') == std::string::npos) continue;  // a top-level section
      bool section = false;
      for (const KeyTable& t : key_tables()) section = section || generic_path(a) == t.prefix;
      INFO("allowed: " << a);
      CHECK((section || find_key(a, kind) != nullptr));
    }
    std::map<std::string, std::string> value;  // a default may be another key's value
    for (const ResolvedKey& r : sc.read) value[r.key] = r.value;
    for (const ResolvedKey& r : sc.read) {
      INFO(r.key << " = " << r.value);
      const KeyInfo* row = find_key(r.key, kind);
      CHECK(row != nullptr);
      if (!row) continue;
      paths.insert(generic_path(r.key));
      if (r.given) continue;
      const std::vector<std::string> stated = literals(row->def);
      if (stated.empty()) continue;  // "required", "none", a derived default
      bool any = false;
      for (const std::string& s : stated) {
        const auto other = value.find(s);
        any = any || same(other == value.end() ? s : other->second, r.value);
      }
      INFO("registered default: " << row->def);
      CHECK(any);
    }
  }
  REQUIRE(loaded > 40);
  // And every registered key is read by some scenario: none is documented but gone.
  for (const KeyInfo& row : key_rows()) {
    if (row.table == "sweep" || key_names(row).empty() || row.type == "section") continue;
    INFO(row.table << ": " << row.key);
    bool seen = false;
    for (const std::string& p : paths) seen = seen || covers(row, p);
    CHECK(seen);
  }
}

TEST_CASE("key registry: type cells read as the domains the readers check", "[tools][keys]") {
  using Kind = KeyDomain::Kind;
  const KeyDomain count = key_domain("count 1-1024");
  REQUIRE(count.kind == Kind::kCount);
  REQUIRE(count.bounded);
  REQUIRE(count.lo == 1);
  REQUIRE(count.hi == 1024);
  REQUIRE(key_domain("count 0-2^64-1").hi == std::numeric_limits<std::uint64_t>::max());
  // A condition after the comma is the reader's; a bound set by other keys is no bound here.
  REQUIRE(key_domain("count 1-65536, divides `dp`").hi == 65536);
  REQUIRE_FALSE(key_domain("count 0 to ranks-1").bounded);
  REQUIRE(key_domain("count 0 to ranks-1").kind == Kind::kCount);
  REQUIRE_FALSE(key_domain("count, a NIC index").bounded);
  const KeyDomain time = key_domain("time >= 1ps, or `inf`");
  REQUIRE(time.kind == Kind::kTime);
  REQUIRE(time.lo == 1);
  REQUIRE(time.hi == static_cast<std::uint64_t>(core::kTimeMax));
  REQUIRE(key_domain("time >= 0").lo == 0);
  const KeyDomain size = key_domain("size 0-4294967295B");
  REQUIRE(size.kind == Kind::kSize);
  REQUIRE(size.hi == 4294967295u);
  REQUIRE(key_domain("size 1B-1TiB; with `step_factor: 1` only").hi == (1ull << 40));
  const KeyDomain ratio = key_domain("ratio in [0, 1)");
  REQUIRE(ratio.kind == Kind::kRatio);
  REQUIRE((!ratio.lo_open && ratio.hi_open && ratio.lo_real == 0 && ratio.hi_real == 1));
  REQUIRE(key_domain("ratio in (0, 1024]").lo_open);
  REQUIRE(key_domain("choice: `a`, `b`").options == std::vector<std::string>{"a", "b"});
  REQUIRE(key_domain("rate > 0").kind == Kind::kRate);
  REQUIRE(key_domain("link").kind == Kind::kOther);
  // Every cell that names a quantity reads as one: a typo would leave its key unbounded.
  for (const KeyInfo& row : key_rows()) {
    const std::string_view t = row.type;
    INFO(row.table << ": " << row.key << ": " << t);
    const KeyDomain d = key_domain(t);
    if (t.starts_with("ratio") || t.starts_with("choice")) CHECK(d.bounded);
    if (t.starts_with("count ") && t.find(" to ") == std::string_view::npos) CHECK(d.bounded);
    if ((t.starts_with("size ") || t.starts_with("time ")) &&
        t.find(" to ") == std::string_view::npos)
      CHECK(d.bounded);
  }
}

TEST_CASE("key registry: the readers refuse what the registry's range excludes", "[tools][keys]") {
  // One key per reader and kind; the bound comes from the registry's cell, never from here.
  const std::vector<std::pair<std::string, std::string>> cases{
      {"scenarios/quickstart.yaml", "simulation.threads"},
      {"scenarios/quickstart.yaml", "cluster.host.nics"},
      {"scenarios/quickstart.yaml", "collectives.step_factor"},
      {"scenarios/quickstart.yaml", "network.dcqcn.fast_recovery_steps"},
      {"scenarios/quickstart.yaml", "network.retry_count"},
      {"scenarios/examples/training_3d_single.yaml", "training.zero"},
      {"scenarios/examples/training_3d_single.yaml", "training.virtual_stages"},
  };
  for (const auto& [file, key] : cases) {
    INFO(file << ": " << key);
    const KeyInfo* row = find_key(key);
    REQUIRE(row != nullptr);
    const KeyDomain d = key_domain(row->type);
    REQUIRE(d.bounded);
    const std::string above = fmt::format("{}={}", key, d.hi + 1);
    REQUIRE_THROWS_WITH(load_scenario(file, {above}),
                        Catch::Contains(fmt::format("between {} and {}", d.lo, d.hi)));
  }
  // Bounds the library itself holds are the registry's too.
  REQUIRE(key_domain(find_key("collectives.max_channels")->type).hi ==
          static_cast<std::uint64_t>(collectives::kMaxChannels));
  REQUIRE(key_domain(find_key("collectives.channels")->type).hi ==
          static_cast<std::uint64_t>(collectives::kMaxChannels));
  // A ratio's open end is refused and its closed end taken.
  const KeyDomain w = key_domain(find_key("network.hpcc.w_ai_fraction")->type);
  REQUIRE(w.hi_open);
  REQUIRE_THROWS_WITH(load_scenario("scenarios/quickstart.yaml",
                                    {"network.cc=hpcc", "network.hpcc.w_ai_fraction=1"}),
                      Catch::Contains("must be in [0, 1), got 1"));
  REQUIRE_NOTHROW(load_scenario("scenarios/quickstart.yaml",
                                {"network.cc=hpcc", "network.hpcc.w_ai_fraction=0"}));
  // Choices are the registry's, in its order.
  const KeyDomain cc = key_domain(find_key("network.cc")->type);
  std::string listed;
  for (const std::string& o : cc.options) listed += (listed.empty() ? "" : ", ") + o;
  REQUIRE_THROWS_WITH(load_scenario("scenarios/quickstart.yaml", {"network.cc=tcp"}),
                      Catch::Contains("expected one of: " + listed));
}
