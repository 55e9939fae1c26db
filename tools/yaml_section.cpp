#include "tools/yaml_section.hpp"

#include "core/input_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include "tools/units.hpp"

namespace fabricsim::tools {
namespace {

std::string list(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

std::string nearest(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string best;
  std::size_t best_d = std::numeric_limits<std::size_t>::max();
  for (std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_d) best_d = d, best = c;
  }
  // Beyond three edits, or most of a short word, the suggestion is noise.
  return best_d <= 3 && best_d < std::max<std::size_t>(word.size(), 2) ? best : "";
}

std::string format_real(double v) {
  return fmt::format("{}", v);
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

Section::Section(YAML::Node node, ParseContext& ctx, std::string path)
    : node_(std::move(node)), ctx_(&ctx), path_(std::move(path)) {
  if (node_ && !node_.IsNull() && !node_.IsMap())
    fail(node_, "must be a mapping of keys to values");
}

std::string Section::join(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

bool Section::has(const char* key) const {
  return node_ && node_.IsMap() && node_[key];
}

std::string Section::location(const YAML::Node& at, const std::string& key_path) const {
  const YAML::Mark m = at ? at.Mark() : YAML::Mark::null_mark();
  if (m.line >= 0) return fmt::format("{}:{}:{}", ctx_->file, m.line + 1, m.column + 1);
  // The latest --set on this key, on a section above it or on a key below it supplied the value.
  for (auto it = ctx_->overrides.rbegin(); it != ctx_->overrides.rend(); ++it) {
    const std::string& p = it->first;
    const auto under = [](const std::string& a, const std::string& b) {
      return a.size() > b.size() && a.compare(0, b.size(), b) == 0 && a[b.size()] == '.';
    };
    if (p == key_path || under(key_path, p) || under(p, key_path)) {
      return fmt::format("{}: --set {}", ctx_->file, it->second);
    }
  }
  return ctx_->file;
}

void Section::fail(const YAML::Node& at, const std::string& what) const {
  const std::string name = path_.empty() ? "the scenario" : "'" + path_ + "'";
  throw ScenarioError(fmt::format("{}: {} {}", location(at, path_), name, what));
}

void Section::fail_checked(const YAML::Node& at, const std::string& what) const {
  throw ScenarioError(fmt::format("{}: {}", location(at, path_), what));
}

void Section::fail_key(const char* key, const std::string& what) const {
  const YAML::Node at = has(key) ? node_[key] : node_;
  throw ScenarioError(fmt::format("{}: '{}' {}", location(at, join(key)), join(key), what));
}

void Section::only(const std::vector<std::string_view>& allowed, const Foreign& foreign) const {
  for (const std::string_view key : allowed) ctx_->allowed.push_back(join(key));
  if (!node_ || !node_.IsMap()) return;
  std::set<std::string> seen;
  for (const auto& kv : node_) {
    if (!kv.first.IsScalar()) fail(kv.first, "has a key that is not a plain name");
    const std::string key = kv.first.Scalar();
    const std::string where = location(kv.first, join(key));
    if (!seen.insert(key).second) {
      throw ScenarioError(fmt::format("{}: key '{}' appears twice in '{}'", where, key, path_));
    }
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    const std::string in = path_.empty() ? "the top level" : "'" + path_ + "'";
    const std::string why = foreign ? foreign(key) : "";
    if (!why.empty()) {
      throw ScenarioError(fmt::format("{}: key '{}' is not allowed in {}: {}; valid keys: {}",
                                      where, key, in, why, list(allowed)));
    }
    const std::string hint = nearest(key, allowed);
    throw ScenarioError(fmt::format("{}: unknown key '{}' in {}{}; valid keys: {}", where, key, in,
                                    hint.empty() ? "" : " (did you mean '" + hint + "'?)",
                                    list(allowed)));
  }
}

Section Section::sub(const char* key) const {
  return Section(has(key) ? node_[key] : YAML::Node(), *ctx_, join(key));
}

std::vector<Section> Section::items(const char* key) const {
  std::vector<Section> out;
  if (!has(key)) return out;
  const YAML::Node seq = node_[key];
  if (!seq.IsSequence()) fail_key(key, "must be a list, e.g. [{...}, {...}]");
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::string name = fmt::format("{}[{}]", join(key), i);
    if (!seq[i].IsMap()) Section(YAML::Node(), *ctx_, name).fail(seq[i], "must be a mapping");
    out.emplace_back(seq[i], *ctx_, name);
  }
  return out;
}

void Section::record(std::string_view key, std::string value, bool given) const {
  ctx_->resolved.push_back({join(key), std::move(value), given});
}

std::optional<std::string> Section::scalar(const char* key, bool required,
                                           std::string_view example) const {
  if (!has(key)) {
    if (required) {
      fail_key(key,
               fmt::format("is required (there is no default): add e.g. '{}: {}'", key, example));
    }
    return std::nullopt;
  }
  const YAML::Node v = node_[key];
  if (v.IsNull()) fail_key(key, fmt::format("has no value: write e.g. '{}: {}'", key, example));
  if (!v.IsScalar()) fail_key(key, fmt::format("must be a single value, e.g. {}", example));
  return v.Scalar();
}

const KeyInfo& Section::registered_row(const char* key) const {
  const std::string& root = ctx_->registry_root;
  std::string path = join(key);
  if (!root.empty()) path = root + "." + path;
  const KeyInfo* row = find_key(path, ctx_->topology);
  // A section that takes another's keys ("as in `collectives`", a job's "as above": its
  // table's fallback) takes their rows too.
  if (row && row->type.starts_with("as in `")) {
    row = find_key(backticked(row->type).front() + "." + key, ctx_->topology);
  } else if (row && row->type == "as above") {
    for (const KeyTable& t : key_tables()) {
      if (t.id != row->table) continue;
      for (const KeyTable& f : key_tables()) {
        if (f.id == t.fallback) row = find_key(std::string(f.prefix) + "." + key, ctx_->topology);
      }
      break;
    }
  }
  if (!row) {
    throw std::logic_error(fmt::format(
        "scenario key '{}' is read but not in the key registry (tools/scenario_keys.cpp)", path));
  }
  return *row;
}

KeyDomain Section::domain(const char* key, KeyDomain::Kind kind, bool bounded) const {
  if (!ctx_->registered) {
    if (!bounded) {
      KeyDomain d;
      d.kind = kind;
      return d;
    }
    throw std::logic_error(
        fmt::format("'{}' is not a scenario key: read it with its bounds", join(key)));
  }
  const KeyInfo& row = registered_row(key);
  KeyDomain d = key_domain(row.type);
  if (d.kind != kind || (bounded && !d.bounded)) {
    throw std::logic_error(fmt::format(
        "the key registry states '{}' as \"{}\", which its reader cannot take{}", join(key),
        row.type, bounded && d.kind == kind ? " without a bound of its own" : ""));
  }
  return d;
}

std::optional<std::string> Section::stated_default(const char* key) const {
  const KeyInfo& row = registered_row(key);
  if (row.def == "required") return std::nullopt;
  if (!row.def.starts_with('`')) {
    throw std::logic_error(fmt::format(
        "the key registry states the default of '{}' in words (\"{}\"): its reader must give it",
        join(key), row.def));
  }
  return backticked(row.def).front();
}

std::uint64_t Section::read_uint(const char* key, std::optional<std::uint64_t> def,
                                 std::uint64_t min, std::uint64_t max) const {
  const auto s = scalar(key, !def, std::to_string(min));
  if (!s) {
    record(key, std::to_string(*def), false);
    return *def;
  }
  std::uint64_t out = 0;
  const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), out);
  if (s->empty() || ec != std::errc() || end != s->data() + s->size()) {
    fail_key(key, fmt::format("must be a whole number, got '{}'", *s));
  }
  if (out < min || out > max) {
    fail_key(key, fmt::format("must be between {} and {}, got {}", min, max, out));
  }
  record(key, std::to_string(out), true);
  return out;
}

std::uint64_t Section::uint(const char* key, std::optional<std::uint64_t> def) const {
  const KeyDomain d = domain(key, KeyDomain::Kind::kCount, true);
  return read_uint(key, def, d.lo, d.hi);
}

std::uint64_t Section::uint_in(const char* key, std::optional<std::uint64_t> def, std::uint64_t min,
                               std::uint64_t max) const {
  const KeyDomain d = domain(key, KeyDomain::Kind::kCount, false);
  return d.bounded ? read_uint(key, def, std::max(min, d.lo), std::min(max, d.hi))
                   : read_uint(key, def, min, max);
}

core::Time Section::read_time(const char* key, std::optional<core::Time> def, core::Time min,
                              core::Time max) const {
  const auto s = scalar(key, !def, "1us");
  if (!s) {
    record(key, format_time_exact(*def), false);
    return *def;
  }
  core::Time t = 0;
  try {
    t = parse_time(*s);
  } catch (const std::invalid_argument& e) {
    fail_key(key, e.what());
  }
  if (t < min) {
    fail_key(key, fmt::format("must be at least {}, got {}", format_time_exact(min),
                              format_time_exact(t)));
  }
  if (t > max) {
    fail_key(key, fmt::format("must be at most {}, got {}", format_time_exact(max),
                              format_time_exact(t)));
  }
  record(key, format_time_exact(t), true);
  return t;
}

core::Time Section::time(const char* key, std::optional<core::Time> def) const {
  const KeyDomain d = domain(key, KeyDomain::Kind::kTime, true);
  return read_time(key, def, static_cast<core::Time>(d.lo), static_cast<core::Time>(d.hi));
}

std::uint64_t Section::read_bytes(const char* key, std::optional<std::uint64_t> def,
                                  std::uint64_t min, std::uint64_t max) const {
  const auto s = scalar(key, !def, "4096B");
  if (!s) {
    record(key, format_bytes(*def), false);
    return *def;
  }
  std::uint64_t b = 0;
  try {
    b = parse_bytes(*s);
  } catch (const std::invalid_argument& e) {
    fail_key(key, e.what());
  }
  if (b < min || b > max) {
    fail_key(key, fmt::format("must be between {} and {}, got {}", format_bytes(min),
                              format_bytes(max), format_bytes(b)));
  }
  record(key, format_bytes(b), true);
  return b;
}

std::uint64_t Section::bytes(const char* key, std::optional<std::uint64_t> def) const {
  const KeyDomain d = domain(key, KeyDomain::Kind::kSize, true);
  return read_bytes(key, def, d.lo, d.hi);
}

std::uint64_t Section::bytes_in(const char* key, std::optional<std::uint64_t> def,
                                std::uint64_t min, std::uint64_t max) const {
  const KeyDomain d = domain(key, KeyDomain::Kind::kSize, false);
  return d.bounded ? read_bytes(key, def, std::max(min, d.lo), std::min(max, d.hi))
                   : read_bytes(key, def, min, max);
}

net::Bps Section::rate(const char* key, std::optional<net::Bps> def) const {
  domain(key, KeyDomain::Kind::kRate, false);
  const auto s = scalar(key, !def, "100Gbps");
  if (!s) {
    record(key, format_rate(*def), false);
    return *def;
  }
  net::Bps r = 0;
  try {
    r = parse_rate(*s);
  } catch (const std::invalid_argument& e) {
    fail_key(key, e.what());
  }
  if (r == 0) fail_key(key, "must be a positive rate: a link that carries nothing cannot be built");
  record(key, format_rate(r), true);
  return r;
}

double Section::read_real(const char* key, std::optional<double> def, const KeyDomain& d) const {
  const auto s = scalar(key, !def, format_real(d.hi_real));
  if (!s) {
    record(key, format_real(*def), false);
    return *def;
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (s->empty() || ec != std::errc() || end != s->data() + s->size() || !std::isfinite(v)) {
    fail_key(key, fmt::format("must be a number, got '{}'", *s));
  }
  if (v < d.lo_real || v > d.hi_real || (d.lo_open && v == d.lo_real) ||
      (d.hi_open && v == d.hi_real)) {
    fail_key(key, fmt::format("must be in {}{}, {}{}, got {}", d.lo_open ? "(" : "[",
                              format_real(d.lo_real), format_real(d.hi_real), d.hi_open ? ")" : "]",
                              *s));
  }
  record(key, format_real(v), true);
  return v;
}

double Section::real(const char* key, std::optional<double> def) const {
  return read_real(key, def, domain(key, KeyDomain::Kind::kRatio, true));
}

double Section::real_in(const char* key, std::optional<double> def, double lo, double hi,
                        bool lo_open) const {
  KeyDomain d = domain(key, KeyDomain::Kind::kRatio, false);
  if (!d.bounded) {
    d.lo_real = lo, d.hi_real = hi, d.lo_open = lo_open, d.hi_open = false;
  } else if (lo > d.lo_real || (lo == d.lo_real && lo_open)) {
    d.lo_real = lo, d.lo_open = lo_open;
  }
  if (d.bounded && hi < d.hi_real) d.hi_real = hi, d.hi_open = false;
  return read_real(key, def, d);
}

bool Section::boolean(const char* key, std::optional<bool> def) const {
  domain(key, KeyDomain::Kind::kBool, false);
  const auto s = scalar(key, !def, "true");
  if (!s) {
    record(key, *def ? "true" : "false", false);
    return *def;
  }
  // Only the two words: YAML 1.1's yes/no/on/off surprise people ("NO" is Norway).
  if (*s != "true" && *s != "false")
    fail_key(key, fmt::format("must be true or false, got '{}'", *s));
  record(key, *s, true);
  return *s == "true";
}

std::string Section::choice(const char* key, std::optional<std::string> def) const {
  const KeyDomain d = domain(key, KeyDomain::Kind::kChoice, true);
  const std::vector<std::string_view> opts(d.options.begin(), d.options.end());
  if (def && std::find(opts.begin(), opts.end(), *def) == opts.end()) {
    throw std::logic_error(fmt::format("the default '{}' of '{}' is not one of its choices: {}",
                                       *def, join(key), list(opts)));
  }
  const auto s = scalar(key, !def, opts.front());
  if (!s) {
    record(key, *def, false);
    return *def;
  }
  if (std::find(opts.begin(), opts.end(), *s) == opts.end()) {
    const std::string hint = nearest(*s, opts);
    fail_key(key, fmt::format("is '{}', expected one of: {}{}", *s, list(opts),
                              hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
  }
  record(key, *s, true);
  return *s;
}

// The forms without a default take the registry's: the value its default cell opens with.
namespace {
template <typename T, typename Parse>
std::optional<T> parsed(const std::optional<std::string>& text, Parse parse) {
  if (!text) return std::nullopt;
  return parse(*text);
}
}  // namespace

std::uint64_t Section::uint(const char* key) const {
  return uint(key, parsed<std::uint64_t>(stated_default(key), [](const std::string& t) {
                return static_cast<std::uint64_t>(std::stoull(t));
              }));
}

core::Time Section::time(const char* key) const {
  return time(key, parsed<core::Time>(stated_default(key),
                                      [](const std::string& t) { return parse_time(t); }));
}

bool Section::boolean(const char* key) const {
  return boolean(key, parsed<bool>(stated_default(key), [&](const std::string& t) {
                   if (t != "true" && t != "false") {
                     throw std::logic_error("registry default of '" + join(key) + "' is " + t);
                   }
                   return t == "true";
                 }));
}

std::string Section::choice(const char* key) const {
  return choice(key, stated_default(key));
}

std::string Section::text(const char* key) const {
  const auto s = scalar(key, true, "name");
  record(key, *s, true);
  return *s;
}

std::vector<std::uint32_t> Section::uints(const char* key, std::uint32_t min,
                                          std::uint32_t max) const {
  std::vector<std::uint32_t> out;
  if (!has(key)) return out;
  const YAML::Node seq = node_[key];
  if (!seq.IsSequence()) fail_key(key, "must be a list of whole numbers, e.g. [0, 1]");
  std::string echo;
  for (std::size_t i = 0; i < seq.size(); ++i) {
    const std::string name = fmt::format("{}[{}]", join(key), i);
    const Section at(YAML::Node(), *ctx_, name);
    std::uint32_t v = 0;
    const std::string s = seq[i].IsScalar() ? seq[i].Scalar() : "";
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
      at.fail(seq[i], "must be a whole number, got '" + s + "'");
    }
    if (v < min || v > max) {
      at.fail(seq[i], fmt::format("must be between {} and {}, got {}", min, max, v));
    }
    out.push_back(v);
    echo += (echo.empty() ? "" : ", ") + std::to_string(v);
  }
  record(key, "[" + echo + "]", true);
  return out;
}

std::optional<std::filesystem::path> first_input_file(
    const Section& s, const char* key, const std::vector<std::filesystem::path>& candidates,
    const char* what, std::uint64_t max_bytes) {
  for (const std::filesystem::path& p : candidates) {
    std::error_code ec;
    if (!std::filesystem::exists(p, ec)) continue;
    try {
      core::check_input_file(p.string(), what, max_bytes);
    } catch (const std::runtime_error& e) {
      s.fail_key(key, e.what());
    }
    s.context().inputs.push_back(p.string());
    return p;
  }
  return std::nullopt;
}

}  // namespace fabricsim::tools
