#include "tools/sweep.hpp"
#include "tests/tools/run_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tools/results_json.hpp"
#include "tools/scenario.hpp"

using namespace fabricsim;
namespace fs = std::filesystem;

namespace {

const char* kBase = R"(cluster:
  topology: single
  hosts: 4
  host: {gpus: 0, nics: 1}
  nic_link: {rate: 100Gbps, delay: 1us}
network:
  cc: dcqcn
workload:
  flows: {pattern: incast, receiver: 3, senders: 3, size: 16KB}
)";

std::string with_sweep(const std::string& sweep) {
  return kBase + std::string("sweep:\n") + sweep;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

using fabricsim::test::Out;
using fabricsim::test::run;

// Next to the binary, so that sweeps of two build trees testing at once do not meet.
fs::path scratch(const std::string& name) {
  const fs::path p = fs::path(FABRICSIM_EXE).parent_path().parent_path() / "sweep_test_out" / name;
  fs::remove_all(p);
  return p;
}

}  // namespace

TEST_CASE("sweep: the product of the axes in file order, zip groups as one axis", "[sweep]") {
  const tools::Sweep s = tools::parse_sweep(with_sweep("  network.cc: [dcqcn, hpcc, none]\n"
                                                       "  zip:\n"
                                                       "    workload.flows.size: [1MB, 4MB]\n"
                                                       "    simulation.seed: [1, 2]\n"
                                                       "  cluster.nic_link.rate: [100Gbps]\n"),
                                            "s.yaml");
  REQUIRE(s.keys == std::vector<std::string>{"network.cc", "workload.flows.size", "simulation.seed",
                                             "cluster.nic_link.rate"});
  REQUIRE(s.points.size() == 6);
  REQUIRE(s.points[0] == std::vector<std::string>{"dcqcn", "1MB", "1", "100Gbps"});
  REQUIRE(s.points[1] == std::vector<std::string>{"dcqcn", "4MB", "2", "100Gbps"});
  REQUIRE(s.points[5] == std::vector<std::string>{"none", "4MB", "2", "100Gbps"});
  REQUIRE(tools::point_sets(s, 2) ==
          std::vector<std::string>{"network.cc=hpcc", "workload.flows.size=1MB",
                                   "simulation.seed=1", "cluster.nic_link.rate=100Gbps"});
  REQUIRE(tools::point_label(s, 3) ==
          "network.cc=hpcc, workload.flows.size=4MB, simulation.seed=2, "
          "cluster.nic_link.rate=100Gbps");
  REQUIRE(tools::point_dir(0) == "0001");
  REQUIRE_NOTHROW(tools::check_points(s, with_sweep("  network.cc: [dcqcn]\n"), "s.yaml", {}));

  const tools::Sweep two = tools::parse_sweep(
      with_sweep("  network.cc: [dcqcn, hpcc]\n  cluster.nic_link.rate: [100Gbps, 400Gbps]\n"),
      "s.yaml");
  REQUIRE(two.points.size() == 4);
  REQUIRE(two.points[1] == std::vector<std::string>{"dcqcn", "400Gbps"});
  REQUIRE(two.points[2] == std::vector<std::string>{"hpcc", "100Gbps"});
}

TEST_CASE("sweep: a malformed sweep section is refused at its line and column", "[sweep]") {
  struct Case {
    std::string sweep;
    const char* message;
  };
  // kBase has 9 lines and "sweep:" is line 10, so the first swept key is on line 11.
  const Case cases[] = {
      {"  zip:\n    workload.flows.size: [1MB, 4MB]\n    simulation.seed: [1, 2, 3]\n",
       "s.yaml:13:22: 'sweep.zip.simulation.seed' has 3 values but "
       "'sweep.zip.workload.flows.size' has 2"},
      {"  network.cc: dcqcn\n", "s.yaml:11:15: 'sweep.network.cc' must be a list of values"},
      {"  network.cc: []\n", "'sweep.network.cc' is an empty list"},
      {"  network.cc: [[dcqcn]]\n", "must list single values"},
      {"  network.cc: ['']\n", "which --set cannot pass on as is"},
      {"  network.cc: [dcqcn]\n  network: [{cc: hpcc}]\n",
       "s.yaml:12:3: 'sweep.network' is "
       "swept twice (with 'network.cc')"},
      {"  network.cc: [dcqcn]\n  zip: {simulation.seed: [1]}\n  zip: {simulation.end: [1us]}\n",
       "has 'zip' twice"},
      {"  zip: {}\n", "'sweep.zip' is empty"},
      {"  sweep.x: [1]\n", "is the sweep itself"},
      {"  {}\n", "'sweep' is empty"},
      {"  [1, 2]\n", "'sweep' must be a mapping"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.sweep);
    REQUIRE_THROWS_WITH(tools::parse_sweep(with_sweep(c.sweep), "s.yaml"),
                        Catch::Contains(c.message));
  }
  REQUIRE_THROWS_WITH(tools::parse_sweep(kBase, "s.yaml"),
                      Catch::Contains("s.yaml: has no 'sweep:' section"));
}

TEST_CASE("sweep: every point is loaded before anything runs, and a bad one is named", "[sweep]") {
  const auto check = [](const std::string& sweep, const std::vector<std::string>& sets = {}) {
    const std::string text = with_sweep(sweep);
    tools::check_points(tools::parse_sweep(text, "s.yaml"), text, "s.yaml", sets);
  };
  REQUIRE_THROWS_WITH(check("  network.ccc: [dcqcn]\n"),
                      Catch::Contains("sweep point 1/1 (network.ccc=dcqcn)") &&
                          Catch::Contains("unknown key 'ccc' in 'network'"));
  REQUIRE_THROWS_WITH(check("  simulation.seed: [1, 2]\n  network.cc: [dcqcn, hcpp]\n"),
                      Catch::Contains("sweep point 2/4 (simulation.seed=1, network.cc=hcpp)") &&
                          Catch::Contains("did you mean 'hpcc'"));
  REQUIRE_THROWS_WITH(check("  cluster.nic_link.rate: [100Gbps, 100]\n"),
                      Catch::Contains("sweep point 2/2") && Catch::Contains("has no unit"));
  REQUIRE_THROWS_WITH(check("  network.cc: [dcqcn]\n", {"network.cc=hpcc"}),
                      Catch::Contains("--set network.cc=hpcc changes 'network.cc'"));
  REQUIRE_NOTHROW(check("  network.cc: [dcqcn, hpcc]\n", {"simulation.seed=3"}));
  const std::string phold = "workload: {phold: {nodes: 8}}\nsweep: {simulation.seed: [1, 2]}\n";
  REQUIRE_THROWS_WITH(tools::check_points(tools::parse_sweep(phold, "p.yaml"), phold, "p.yaml", {}),
                      Catch::Contains("a PHOLD scenario writes no results.json"));
  // `run` takes a file with a sweep: section and uses its base values.
  REQUIRE(tools::parse_scenario(with_sweep("  network.cc: [hpcc]\n"), "s.yaml").has_sweep);
}

TEST_CASE("sweep: headline results come from results.json and make one CSV row", "[sweep]") {
  const tools::Scenario sc = tools::parse_scenario(kBase, "s.yaml");
  net::NetworkResult r;
  r.flows.resize(2);
  r.flows[0].start = 0;
  r.flows[0].finish = 2'500'000;  // 2.5 us in ps
  r.flows[0].ideal = 1'000'000;   // slowdown 2.5
  r.flows[1].finish = -1;
  r.ports.resize(1);
  r.ports[0].drops = 3;
  r.ports[0].ecn_marks = 7;
  r.end = 4'000'000;
  const auto row = tools::read_headline(tools::results_json(sc, r), "r.json");
  // The numbers as results.json holds them (JSON numbers, shortest exact form).
  REQUIRE(row == std::vector<std::string>{"1", "2.5", "2.5", "4.0", "3", "7", "0", "2.5", "2.5"});
  REQUIRE_THROWS_WITH(tools::read_headline("{}", "r.json"), Catch::Contains("r.json"));
  // No flow finished: the FCTs are unknown (null in results.json, empty cells), not 0.
  net::NetworkResult none = r;
  none.flows[0].finish = -1;
  REQUIRE(tools::read_headline(tools::results_json(sc, none), "r.json") ==
          std::vector<std::string>{"0", "", "", "4.0", "3", "7", "0", "", ""});

  tools::Sweep s;
  s.keys = {"network.cc", "odd,key"};
  s.points = {{"dcqcn", "a\"b"}};
  const std::string json = tools::results_json(sc, r);
  REQUIRE(tools::headline_fields(json).size() == tools::kHeadline.size());
  REQUIRE(tools::sweep_csv(s, tools::headline_fields(json), {row}, {""}) ==
          "point,network.cc,\"odd,key\",flows_finished,fct_mean_us,fct_max_us,end_us,drops,"
          "ecn_marks,pfc_pauses,fct_slowdown_p50,fct_slowdown_p99,error\n1,dcqcn,\"a\"\"b\",1,2.5,"
          "2.5,4.0,3,7,0,2.5,2.5,\n");
  // A point that failed: empty results and its error.
  s.points.push_back({"hpcc", "c"});
  REQUIRE(tools::sweep_csv(s, {"drops"}, {{"3"}, {}}, {"", "stalled, at 1 us"}) ==
          "point,network.cc,\"odd,key\",drops,error\n1,dcqcn,\"a\"\"b\",3,\n"
          "2,hpcc,c,,\"stalled, at 1 us\"\n");
}

TEST_CASE("sweep: several training jobs tabulate the run's end and each job's columns", "[sweep]") {
  // A results.json of two jobs on one fabric (tools/results_json.cpp): it once failed to
  // tabulate, read as a flows run.
  nlohmann::json jobs = nlohmann::json::array();
  for (const char* name : {"a", "b"}) {
    nlohmann::json job = {{"name", name}, {"start_s", 0.0}};
    double v = name[0] == 'a' ? 1 : 2;
    for (std::string_view f : tools::kTrainingHeadline) job[std::string(f)] = v++;
    jobs.push_back(job);
  }
  const std::string json = nlohmann::json{{"results", {{"end_s", 3.5}, {"jobs", jobs}}}}.dump();
  const std::vector<std::string> fields = tools::headline_fields(json);
  REQUIRE(fields.size() == 1 + 2 * tools::kTrainingHeadline.size());
  CHECK(fields[0] == "end_s");
  CHECK(fields[1] == "a.iteration_s");
  CHECK(fields[1 + tools::kTrainingHeadline.size()] == "b.iteration_s");
  const std::vector<std::string> row = tools::read_headline(json, "r.json");
  CHECK(row[0] == "3.5");
  CHECK(row[1] == "1.0");
  CHECK(row[1 + tools::kTrainingHeadline.size()] == "2.0");
}

TEST_CASE("sweep: long tables join every point's rows behind its point and swept values",
          "[sweep]") {
  tools::Sweep s;
  s.keys = {"network.cc"};
  s.points = {{"dcqcn"}, {"a,b"}};
  REQUIRE(tools::long_csv(s, {"size,busbw\n8,1.5\n16,2.5\n", "size,busbw\n8,3.5\n"}, "t") ==
          "point,network.cc,size,busbw\n1,dcqcn,8,1.5\n1,dcqcn,16,2.5\n2,\"a,b\",8,3.5\n");
  REQUIRE_THROWS_WITH(tools::long_csv(s, {"size,busbw\n", "size,algbw\n"}, "busbw.csv"),
                      Catch::Contains("busbw.csv: point 2 has other columns"));
  // A point that failed has no table and no rows.
  REQUIRE(tools::long_csv(s, {"", "size,busbw\n8,3.5\n"}, "t") ==
          "point,network.cc,size,busbw\n2,\"a,b\",8,3.5\n");
}

TEST_CASE("sweep end to end: -j 2 matches -j 1, and an interrupted sweep resumes", "[sweep][cli]") {
  const std::string tiny = "tests/data/sweep/tiny.yaml";
  const fs::path one = scratch("j1"), two = scratch("j2");
  const Out a = run("sweep " + tiny + " -j 1 --out " + one.string());
  INFO(a.text);
  REQUIRE(a.status == 0);
  REQUIRE_THAT(a.text, Catch::Contains("point 4/4 done (network.cc=hpcc, "
                                       "workload.flows.size=256KB, simulation.seed=2)"));
  const std::string csv = slurp(one / "sweep.csv");
  REQUIRE_THAT(csv, Catch::StartsWith("point,network.cc,workload.flows.size,simulation.seed,"
                                      "flows_finished,fct_mean_us,"));
  REQUIRE(std::count(csv.begin(), csv.end(), '\n') == 5);
  REQUIRE_THAT(csv, Catch::Contains("\n1,dcqcn,16KB,1,3,"));
  REQUIRE_THAT(csv, Catch::Contains("\n4,hpcc,256KB,2,3,"));

  // Every point's flows joined into one long table, keyed by point and the swept values.
  const std::string flows = slurp(one / "flows.csv");
  REQUIRE_THAT(flows, Catch::StartsWith("point,network.cc,workload.flows.size,simulation.seed,"
                                        "flow,src,dst,bytes,"));
  REQUIRE(std::count(flows.begin(), flows.end(), '\n') == 1 + 4 * 3);  // 3 flows a point
  REQUIRE_THAT(flows, Catch::Contains("\n4,hpcc,256KB,2,2,"));

  const Out b = run("sweep " + tiny + " -j 2 --out " + two.string());
  INFO(b.text);
  REQUIRE(b.status == 0);
  REQUIRE(slurp(two / "sweep.csv") == csv);

  // A sweep killed with point 3 never started and point 4 half written: only they run again.
  const fs::path points = one / "points";
  const auto mtime = [&](const char* p) {
    return fs::last_write_time(points / p / "results.json");
  };
  const auto t1 = mtime("0001"), t2 = mtime("0002");
  fs::remove_all(points / "0003");
  fs::rename(points / "0004" / "results.json", points / "0004" / "results.json.tmp");
  fs::resize_file(points / "0004" / "results.json.tmp", 10);
  const Out c = run("sweep " + tiny + " -j 2 --out " + one.string());
  INFO(c.text);
  REQUIRE(c.status == 0);
  REQUIRE_THAT(c.text, Catch::Contains("point 1/4 skipped") &&
                           Catch::Contains("point 2/4 skipped") &&
                           Catch::Contains("point 3/4 done") && Catch::Contains("point 4/4 done"));
  REQUIRE(mtime("0001") == t1);
  REQUIRE(mtime("0002") == t2);
  REQUIRE(slurp(one / "sweep.csv") == csv);

  // The same folder with a different sweep would mix rows of two experiments.
  const Out d = run("sweep " + tiny + " --set simulation.end=1ms --out " + one.string());
  REQUIRE(d.status == 1);
  REQUIRE_THAT(d.text, Catch::Contains("holds another sweep"));
}

TEST_CASE("sweep for a scheduler: emitted commands run elsewhere, then collected", "[sweep][cli]") {
  const std::string tiny = "tests/data/sweep/tiny.yaml";
  const fs::path here = scratch("emit_local"), there = scratch("emit");
  REQUIRE(run("sweep " + tiny + " --out " + here.string()).status == 0);

  const Out emit = run("sweep " + tiny + " --emit slurm --out " + there.string());
  INFO(emit.text);
  REQUIRE(emit.status == 0);
  REQUIRE_THAT(emit.text, Catch::Contains("4 of 4 points to run") && Catch::Contains("--collect"));
  const std::string commands = slurp(there / "commands.txt");
  REQUIRE(std::count(commands.begin(), commands.end(), '\n') == 4);
  REQUIRE_THAT(commands, Catch::Contains(" run ") && Catch::Contains("--threads 1") &&
                             Catch::Contains("--set network.cc=hpcc"));
  REQUIRE_THAT(slurp(there / "sweep.sbatch"),
               Catch::Contains("#SBATCH --array=1-4") && Catch::Contains("SLURM_ARRAY_TASK_ID"));
  REQUIRE_FALSE(fs::exists(there / "points" / "0001" / "results.json"));  // nothing ran

  // Nothing to collect yet; then run two of the points as a scheduler would, from elsewhere.
  const Out early = run("sweep " + tiny + " --collect --out " + there.string());
  REQUIRE(early.status == 1);
  REQUIRE_THAT(early.text, Catch::Contains("4 of 4 points have no results.json yet"));
  std::istringstream lines(commands);
  std::string line;
  for (int k = 0; k < 2 && std::getline(lines, line); ++k) {
    REQUIRE(std::system(("cd / && " + line).c_str()) == 0);
  }
  // A second emit lists only the points still to run.
  const Out rest = run("sweep " + tiny + " --emit list --out " + there.string());
  REQUIRE_THAT(rest.text, Catch::Contains("2 of 4 points to run"));
  const std::string remaining = slurp(there / "commands.txt");
  std::istringstream more(remaining);
  while (std::getline(more, line)) REQUIRE(std::system(("cd / && " + line).c_str()) == 0);
  const Out done = run("sweep " + tiny + " --collect --out " + there.string());
  INFO(done.text);
  REQUIRE(done.status == 0);
  REQUIRE(slurp(there / "sweep.csv") == slurp(here / "sweep.csv"));

  REQUIRE(run("sweep " + tiny + " --emit pbs --out " + there.string()).status == 2);
  REQUIRE(run("sweep " + tiny + " --emit list --collect --out " + there.string()).status == 2);
}

TEST_CASE("sweep end to end: a failing point is reported, the rest run, a re-run retries it",
          "[sweep][cli]") {
  const std::string tiny = "tests/data/sweep/tiny.yaml";
  const fs::path dir = scratch("fail");
  // `run --out` cannot replace a folder with its flows.csv, so point 2 fails after loading.
  fs::create_directories(dir / "points" / "0002" / "flows.csv");
  const Out a = run("sweep " + tiny + " -j 2 --out " + dir.string());
  INFO(a.text);
  REQUIRE(a.status == 1);
  REQUIRE_THAT(a.text, Catch::Contains("point 2/4 FAILED, exit code 1"));
  REQUIRE_THAT(a.text, Catch::Contains("point 4/4 done"));
  REQUIRE_THAT(a.text, Catch::Contains("1 of 4 points failed"));
  REQUIRE_THAT(slurp(dir / "points" / "0002" / "error.txt"), Catch::Contains("flows.csv"));
  // The table still comes: point 2's row has no results, and its error.
  const std::string partial = slurp(dir / "sweep.csv");
  REQUIRE_THAT(partial, Catch::StartsWith("point,network.cc,workload.flows.size,simulation.seed,"));
  std::istringstream rows(partial);
  std::string row;
  for (int k = 0; k < 3; ++k) std::getline(rows, row);
  REQUIRE_THAT(row, Catch::StartsWith("2,"));
  REQUIRE_THAT(row, Catch::Contains(",,,,,,,,,") && Catch::Contains("flows.csv"));
  REQUIRE_THAT(slurp(dir / "flows.csv"), !Catch::Contains("\n2,"));

  fs::remove_all(dir / "points" / "0002" / "flows.csv");
  const Out b = run("sweep " + tiny + " --out " + dir.string());
  INFO(b.text);
  REQUIRE(b.status == 0);
  REQUIRE_THAT(b.text, Catch::Contains("sweep: 4 points, 1 to run"));
  REQUIRE(fs::exists(dir / "sweep.csv"));

  const Out bad =
      run("sweep tests/data/sweep/tiny.yaml --set network.cc=none --out " + (dir / "x").string());
  REQUIRE(bad.status == 1);
  REQUIRE_THAT(bad.text, Catch::Contains("which the sweep varies"));
  REQUIRE(run("sweep scenarios/examples/incast_hpcc.yaml").status == 1);  // no sweep: section
}

TEST_CASE("sweep: a changed file the scenario reads is another sweep, not finished points",
          "[sweep][cli]") {
  // The flow sizes come from a CSV beside the scenario: its contents are part of the plan.
  const fs::path dir = scratch("inputs");
  fs::create_directories(dir / "in");
  const auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  write(dir / "in" / "sizes.csv", "1000,0\n2000,100\n");
  write(dir / "in" / "s.yaml",
        "cluster: {topology: single, hosts: 4, host: {gpus: 0}, nic_link: {rate: 100Gbps, "
        "delay: 1us}}\n"
        "workload:\n  flows: {pattern: poisson, sizes: sizes.csv, load: 0.3, duration: 20us}\n"
        "sweep:\n  simulation.seed: [1, 2]\n");
  const std::string cmd =
      "sweep " + (dir / "in" / "s.yaml").string() + " --out " + (dir / "out").string();
  REQUIRE(run(cmd).status == 0);
  REQUIRE_THAT(slurp(dir / "out" / "sweep_plan.txt"), Catch::Contains("input sizes.csv fnv1a "));
  REQUIRE_THAT(run(cmd).text, Catch::Contains("point 2/2 skipped, finished earlier"));
  write(dir / "in" / "sizes.csv", "100000,0\n200000,100\n");
  const Out changed = run(cmd);
  REQUIRE(changed.status == 1);
  REQUIRE_THAT(changed.text,
               Catch::Contains("holds another sweep") && Catch::Contains("a file it reads"));
}

TEST_CASE("sweep tabulates a collectives scenario by bus bandwidth", "[sweep][cli]") {
  const fs::path dir = scratch("coll");
  const Out a = run("sweep tests/data/sweep/busbw.yaml -j 2 --out " + dir.string());
  REQUIRE(a.status == 0);
  const std::string csv = slurp(dir / "sweep.csv");
  REQUIRE_THAT(csv, Catch::StartsWith("point,cluster.nic_link.rate,sizes,avg_busbw_GBps,"
                                      "max_busbw_GBps,largest_time_us,largest_busbw_GBps,error\n"));
  // Faster NICs, more bus bandwidth at the largest size.
  std::vector<double> largest;
  std::stringstream ss(csv);
  std::string line;
  std::getline(ss, line);
  while (std::getline(ss, line)) {
    REQUIRE(line.back() == ',');  // no error
    line.pop_back();
    largest.push_back(std::stod(line.substr(line.rfind(',') + 1)));
  }
  REQUIRE(largest.size() == 2);
  REQUIRE(largest[1] > 1.5 * largest[0]);
}

TEST_CASE("sweep tabulates a training scenario by iteration time", "[sweep][cli]") {
  const fs::path dir = scratch("training");
  const Out a = run("sweep tests/data/sweep/training.yaml -j 2 --out " + dir.string());
  REQUIRE(a.status == 0);
  const std::string csv = slurp(dir / "sweep.csv");
  REQUIRE_THAT(csv, Catch::StartsWith("point,training.micro_batch,iteration_s,compute_s,"
                                      "exposed_comm_s,bubble_s,tflops_per_gpu,mfu,memory_GB,"
                                      "model_flops,error\n"));
  std::vector<double> iteration, flops;
  std::stringstream ss(csv);
  std::string line;
  std::getline(ss, line);
  while (std::getline(ss, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 10);  // getline drops the empty error cell at the end
    iteration.push_back(std::stod(f[2]));
    flops.push_back(std::stod(f[9]));
  }
  REQUIRE(iteration.size() == 2);
  REQUIRE(iteration[0] > 0);
  REQUIRE(iteration[1] > 0);
  // The same work in smaller pieces: equal model FLOPs, a different time.
  REQUIRE(flops[0] == flops[1]);
  REQUIRE(iteration[0] != iteration[1]);
}

namespace {

// Processes whose command line mentions `needle` (scanning /proc, Linux only).
int processes_mentioning(const std::string& needle) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (cmd.find(needle) != std::string::npos && cmd.find(" run ") == std::string::npos &&
        cmd.find(std::string("run\0", 4)) != std::string::npos) {
      ++n;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("sweep: a killed sweep takes its workers with it", "[sweep][cli]") {
  const fs::path dir = scratch("killed");
  // Points long enough to be running when the signal comes (seconds each).
  const std::string cmd = std::string(FABRICSIM_EXE) +
                          " sweep tests/data/sweep/slow.yaml -j 2 --out " + dir.string() +
                          " > /dev/null 2>&1 & echo $!";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  int sweep = 0;
  REQUIRE(std::fscanf(p, "%d", &sweep) == 1);
  pclose(p);
  // Wait (at most 20 s) until both workers run.
  for (int i = 0; i < 200 && processes_mentioning(dir.string()) < 2; ++i) ::usleep(100'000);
  REQUIRE(processes_mentioning(dir.string()) == 2);
  REQUIRE(::kill(sweep, SIGTERM) == 0);
  for (int i = 0; i < 100 && processes_mentioning(dir.string()) > 0; ++i) ::usleep(100'000);
  REQUIRE(processes_mentioning(dir.string()) == 0);
}
