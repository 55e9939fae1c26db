#pragma once
// Strict reading of one YAML mapping: every key known, every quantity with its unit, every
// error naming the file, line, column and key path (or the --set that supplied the value).
// Internal to tools/; the scenario readers are its only users.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.hpp"
#include "net/topology/topology.hpp"
#include "tools/scenario.hpp"
#include "tools/scenario_keys.hpp"

namespace fabricsim::tools {

// Shared by every Section of one parse.
struct ParseContext {
  std::string file;
  // Key path and the --set text that wrote it: values from the command line have no position
  // in the file, so their errors quote the --set instead.
  std::vector<std::pair<std::string, std::string>> overrides;
  std::vector<ResolvedKey> resolved;  // every key read, in reading order
  // Every key a section allowed (its full path), present or not: the key registry's tests
  // check that each is registered.
  std::vector<std::string> allowed;
  // For the key registry's lookups (tools/scenario_keys.hpp): the topology kind read so far
  // (several kinds share a key name), and where a file's keys sit in a scenario ("training.model"
  // for a model file, whose own paths start at its top level).
  std::string topology;
  std::string registry_root;
  // False for files that are not scenarios (the validation manifests): no registry lookups, and
  // only the *_in reads, which state their bounds.
  bool registered = true;
  // The other files the scenario read (models, flow-size distributions, imports, kernel
  // database): a sweep's plan covers their contents.
  std::vector<std::string> inputs;
};

std::size_t edit_distance(std::string_view a, std::string_view b);

class Section {
 public:
  // For a key that is not allowed here but means something elsewhere: returns why (e.g.
  // "it belongs to topology fat_tree"), or "" to fall back to the did-you-mean hint.
  using Foreign = std::function<std::string(const std::string& key)>;

  Section(YAML::Node node, ParseContext& ctx, std::string path);

  const std::string& path() const { return path_; }
  std::string join(std::string_view key) const;
  const YAML::Node& node() const { return node_; }
  bool present() const { return node_ && !node_.IsNull(); }
  bool has(const char* key) const;
  ParseContext& context() const { return *ctx_; }

  [[noreturn]] void fail(const YAML::Node& at, const std::string& what) const;
  // At `at`, for a message that names its keys itself (checks that span several keys).
  [[noreturn]] void fail_checked(const YAML::Node& at, const std::string& what) const;
  // At the value of `key` when it is present, else at this section; names path.key.
  [[noreturn]] void fail_key(const char* key, const std::string& what) const;

  // Every key present must be one of `allowed`, and appear once.
  void only(const std::vector<std::string_view>& allowed, const Foreign& foreign = {}) const;
  void only(std::initializer_list<std::string_view> allowed) const {
    only(std::vector<std::string_view>(allowed));
  }

  Section sub(const char* key) const;
  // `key` as a sequence of mappings, each named "path.key[i]".
  std::vector<Section> items(const char* key) const;

  // Typed values. A missing key takes `def`; with no default (std::nullopt) it is an error,
  // because rates, delays and sizes without a documented default must come from the scenario.
  // The type, range and choices are the key registry's (tools/scenario_keys.cpp): a reader
  // accepts what `fabricsim info` and docs/scenarios.md state, and a key the registry lacks or
  // states as another type is a programming error (std::logic_error).
  std::uint64_t uint(const char* key, std::optional<std::uint64_t> def) const;
  core::Time time(const char* key, std::optional<core::Time> def) const;
  std::uint64_t bytes(const char* key, std::optional<std::uint64_t> def) const;
  net::Bps rate(const char* key, std::optional<net::Bps> def) const;  // at least 1bps
  double real(const char* key, std::optional<double> def) const;
  bool boolean(const char* key, std::optional<bool> def) const;
  std::string choice(const char* key, std::optional<std::string> def) const;
  // The same, with the registry's default: the value its default cell opens with ("`1`",
  // "`0us` = ..."), none when it says "required". A key whose default the registry states in
  // words (derived from other keys, from the GPU model, ...) is read with the forms above.
  std::uint64_t uint(const char* key) const;
  core::Time time(const char* key) const;
  bool boolean(const char* key) const;
  std::string choice(const char* key) const;
  // For a key whose bound is set by other keys, which its registry row states in words
  // ("count 0 to ranks-1"): the bound the reader computed, within the row's own when it has one.
  std::uint64_t uint_in(const char* key, std::optional<std::uint64_t> def, std::uint64_t min,
                        std::uint64_t max) const;
  std::uint64_t bytes_in(const char* key, std::optional<std::uint64_t> def, std::uint64_t min,
                         std::uint64_t max) const;
  // In [lo, hi], or (lo, hi] when `lo_open`.
  double real_in(const char* key, std::optional<double> def, double lo, double hi,
                 bool lo_open = false) const;
  std::string text(const char* key) const;
  std::vector<std::uint32_t> uints(const char* key, std::uint32_t min, std::uint32_t max) const;

  // Adds a derived or parsed value to the resolved configuration.
  void record(std::string_view key, std::string value, bool given) const;

 private:
  std::string location(const YAML::Node& at, const std::string& key_path) const;
  // The registry's row of `key` (std::logic_error when there is none).
  const KeyInfo& registered_row(const char* key) const;
  std::optional<std::string> stated_default(const char* key) const;
  // The registry's domain of `key`, which must be of `kind` (and `bounded`, when asked).
  KeyDomain domain(const char* key, KeyDomain::Kind kind, bool bounded) const;
  std::uint64_t read_uint(const char* key, std::optional<std::uint64_t> def, std::uint64_t min,
                          std::uint64_t max) const;
  double read_real(const char* key, std::optional<double> def, const KeyDomain& d) const;
  core::Time read_time(const char* key, std::optional<core::Time> def, core::Time min,
                       core::Time max) const;
  std::uint64_t read_bytes(const char* key, std::optional<std::uint64_t> def, std::uint64_t min,
                           std::uint64_t max) const;
  // The scalar text of `key`, or nullopt when absent (and then the default is recorded).
  std::optional<std::string> scalar(const char* key, bool required, std::string_view example) const;

  YAML::Node node_;
  ParseContext* ctx_;
  std::string path_;
};

// The first of `candidates` that exists, checked as an input file of at most `max_bytes`
// (core::check_input_file; a failure is reported at `key` of `s`); nullopt when none exists.
std::optional<std::filesystem::path> first_input_file(
    const Section& s, const char* key, const std::vector<std::filesystem::path>& candidates,
    const char* what, std::uint64_t max_bytes);

}  // namespace fabricsim::tools
