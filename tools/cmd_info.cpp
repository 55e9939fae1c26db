// fabricsim info: the scenario keys, from the one registry (tools/scenario_keys.hpp).
#include <boost/program_options.hpp>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tools/commands.hpp"
#include "tools/net_report.hpp"
#include "tools/scenario.hpp"
#include "tools/scenario_keys.hpp"
#include "tools/yaml_section.hpp"

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace fabricsim::tools {
namespace {

std::string plain(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c != '`') out += c;
  }
  return out;
}

// `text` in lines of at most `width` columns, each after `indent` spaces.
std::string wrap(const std::string& text, std::size_t indent, std::size_t width) {
  std::istringstream words(text);
  std::string word, line, out;
  while (words >> word) {
    if (!line.empty() && indent + line.size() + 1 + word.size() > width) {
      out += std::string(indent, ' ') + line + '\n';
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
  }
  if (!line.empty()) out += std::string(indent, ' ') + line + '\n';
  return out;
}

// The closest key paths to a prefix that matched nothing, for the error.
std::string suggestion(const std::string& prefix) {
  std::string best;
  std::size_t best_d = 4;
  for (const KeyInfo& r : key_rows()) {
    for (const std::string& path : key_paths(r)) {
      const std::size_t d = edit_distance(path, prefix);
      if (d < best_d) {
        best_d = d;
        best = path;
      }
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

}  // namespace

int cmd_info(const std::vector<std::string>& args) {
  po::options_description opts(
      "fabricsim info [KEY-OR-SECTION] [options]: every scenario key, or those under a section "
      "or key path (network, network.dcqcn, cluster.host.gpus), with its type, default and "
      "meaning; 'gpus': the GPU models");
  std::string prefix, docs;
  opts.add_options()("help,h", "show this help")(
      "markdown", "print the tables as docs/scenarios.md shows them")(
      "docs", po::value(&docs),
      "check that this file's key tables (between '<!-- keys: ID -->' and '<!-- /keys -->') are "
      "the registry's; exit 1 if not")("write", "with --docs: rewrite the tables instead");
  po::options_description hidden;
  hidden.add_options()("prefix", po::value(&prefix));
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("prefix", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
  po::notify(vm);
  if (vm.count("help")) {
    std::cout << opts << "\nexample: fabricsim info network.dcqcn\n";
    return 0;
  }
  if (vm.count("write") && docs.empty()) {
    std::cerr << "fabricsim info: --write rewrites the tables of --docs FILE: give the file\n";
    return 2;
  }
  if (!docs.empty()) {
    std::ostringstream read;
    read << open_input(docs, "document", 16u << 20).rdbuf();
    const std::string text = read.str();
    const std::string fresh = regenerate_key_tables(text);
    if (vm.count("write")) {
      const fs::path path(docs);
      if (fresh != text) {
        write_atomically(path.parent_path().empty() ? "." : path.parent_path().string(),
                         path.filename().string(), fresh);
      }
      std::cout << docs << ": key tables written from the registry\n";
      return 0;
    }
    if (fresh != text) {
      std::cerr << docs << ": its key tables differ from the registry (tools/scenario_keys.cpp); "
                << "'fabricsim info --docs " << docs << " --write' rewrites them\n";
      return 1;
    }
    std::cout << docs << ": key tables match the registry\n";
    return 0;
  }
  if (prefix == "gpus") {  // the GPU models `cluster.host.gpu` takes
    std::cout << markdown_table("gpus");
    return 0;
  }
  const std::vector<const KeyInfo*> rows = rows_under(prefix);
  if (rows.empty()) {
    throw ScenarioError("no scenario key or section '" + prefix + "'" + suggestion(prefix) +
                        "; 'fabricsim info' lists them all");
  }
  std::string_view table;
  std::set<std::string_view> printed;
  // A section's own tables, when the prefix names one (network.hpcc: not the row of `network`
  // that introduces it).
  std::set<std::string_view> own;
  for (const KeyTable& t : key_tables()) {
    if (t.prefix == prefix || t.prefix == prefix + "[i]" || t.id == prefix) own.insert(t.id);
  }
  for (const KeyInfo* r : rows) {
    if (!own.empty() && !own.count(r->table)) continue;
    const KeyTable* t = nullptr;
    for (const KeyTable& k : key_tables()) {
      if (k.id == r->table) t = &k;
    }
    if (vm.count("markdown")) {
      if (printed.insert(t->id).second) std::cout << markdown_table(t->id) << '\n';
      continue;
    }
    if (r->table != table) {
      table = r->table;
      std::cout << (printed.empty() ? "" : "\n") << "== " << t->title << " ==\n";
      printed.insert(table);
    }
    std::string line = std::string(t->prefix) + "." + plain(r->key) + ": " + plain(r->type);
    if (!r->def.empty()) line += "; default " + plain(r->def);
    std::cout << wrap(line, 0, 100) << wrap(plain(r->meaning), 4, 100);
  }
  return 0;
}

}  // namespace fabricsim::tools
