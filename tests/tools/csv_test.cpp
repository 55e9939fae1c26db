#include "tools/csv.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "net/network.hpp"
#include "net/topology/build.hpp"
#include "tools/net_report.hpp"

using namespace fabricsim;

TEST_CASE("csv: text fields are quoted as RFC 4180 says", "[csv]") {
  REQUIRE(tools::csv_field("leaf0") == "leaf0");
  REQUIRE(tools::csv_field("") == "");
  REQUIRE(tools::csv_field("sw(0,1)") == "\"sw(0,1)\"");
  REQUIRE(tools::csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  REQUIRE(tools::csv_field("a\nb") == "\"a\nb\"");
}

namespace {

// Fields of one CSV line, honouring quotes (what a CSV reader does).
std::size_t field_count(const std::string& line) {
  std::size_t n = 1;
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (c == ',' && !quoted) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("csv: ports.csv of a torus keeps one field per column", "[csv]") {
  net::TorusParams p;
  p.dims = {2, 2};
  p.hosts_per_switch = 1;
  p.host.gpus = 0;
  p.nic = {100 * net::kGbps, core::kMicrosecond};
  p.link = {100 * net::kGbps, core::kMicrosecond};
  const net::Topology topo = net::torus(p);
  const std::vector<net::FlowSpec> flows{{0, 3, 10'000, 0}};
  net::NetworkConfig cfg;
  const net::NetworkResult r = net::Network(topo, cfg, flows).run({});
  std::istringstream csv(tools::ports_csv(topo, r));
  std::string header, line;
  std::getline(csv, header);
  const std::size_t columns = field_count(header);
  std::size_t rows = 0, quoted = 0;
  while (std::getline(csv, line)) {
    CAPTURE(line);
    REQUIRE(field_count(line) == columns);
    ++rows;
    quoted += line.find('"') != std::string::npos;
  }
  REQUIRE(rows > 0);
  REQUIRE(quoted > 0);  // switch names such as sw(0,1) hold commas
}
