#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/tools/run_cli.hpp"

using fabricsim::test::Out;
using fabricsim::test::run;

namespace {

std::string file_text(const char* path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("fabricsim --help and --version", "[cli]") {
  const Out help = run("--help");
  REQUIRE(help.status == 0);
  REQUIRE_THAT(help.text, Catch::Contains("run SCENARIO.yaml"));
  const Out v = run("--version");
  REQUIRE(v.status == 0);
  REQUIRE_THAT(v.text, Catch::StartsWith("fabricsim "));
  REQUIRE(run("frobnicate").status == 2);
}

TEST_CASE("fabricsim run on PHOLD: threads do not change the trace", "[cli]") {
  const Out one = run("run scenarios/examples/phold.yaml --threads 1 --set simulation.end=20us");
  const Out two = run("run scenarios/examples/phold.yaml --threads 2 --set simulation.end=20us");
  REQUIRE(one.status == 0);
  REQUIRE(two.status == 0);
  REQUIRE_THAT(one.text, Catch::Contains("events/s"));
  const auto hash = [](const std::string& t) { return t.substr(t.find("trace hash")); };
  REQUIRE(hash(one.text) == hash(two.text));
}

TEST_CASE("fabricsim run on the incast example: results independent of threads, files written",
          "[cli]") {
  const std::string out = "build/cli_test_out";
  const Out one = run("run scenarios/examples/incast_hpcc.yaml --threads 1 --out " + out);
  const Out two = run("run scenarios/examples/incast_hpcc.yaml --threads 2");
  REQUIRE(one.status == 0);
  REQUIRE(two.status == 0);
  // Everything from the flow table to the losses line is simulated, not measured.
  const auto results = [](const std::string& t) {
    const auto a = t.find("flows "), b = t.find("traffic until");
    return t.substr(a, t.find('\n', b) - a);
  };
  REQUIRE_THAT(one.text, Catch::Contains("8 of 8 finished"));
  REQUIRE(results(one.text) == results(two.text));
  for (const char* f : {"/flows.csv", "/ports.csv", "/results.json"}) {
    FILE* fp = std::fopen((out + f).c_str(), "r");
    REQUIRE(fp != nullptr);
    std::fclose(fp);
  }
}

TEST_CASE("fabricsim run with an incast mix: incast flows marked, apart in the outputs", "[cli]") {
  const std::string out = "build/cli_test_out/incast_mix";
  const Out o =
      run("run scenarios/examples/cc_websearch.yaml --set cluster.leaves=2 "
          "--set cluster.hosts_per_leaf=8 --set workload.flows.duration=200us "
          "--set workload.flows.incasts.senders=8 --set workload.flows.incasts.size=100KB "
          "--set workload.flows.incasts.load=0.05 -q --out " +
          out);
  REQUIRE(o.status == 0);
  REQUIRE_THAT(o.text, Catch::Contains("of them in incasts)") &&
                           Catch::Contains("(left out of the slowdowns below)"));
  std::ifstream flows(out + "/flows.csv");
  std::string line;
  REQUIRE(std::getline(flows, line));
  REQUIRE_THAT(line, Catch::EndsWith(",acked_us,ideal_acked_us,incast"));
  std::size_t incast = 0, background = 0;
  while (std::getline(flows, line)) {
    if (line.back() == '1') {
      ++incast;
      REQUIRE_THAT(line, Catch::Contains(",100000,"));  // every incast flow sends its 100 KB
    } else {
      ++background;
    }
  }
  REQUIRE(incast % 8 == 0);
  REQUIRE(incast > 0);
  REQUIRE(background > 0);
  std::ifstream ports(out + "/ports.csv");
  REQUIRE(std::getline(ports, line));
  REQUIRE_THAT(line, Catch::EndsWith(",data_bytes_background,data_bytes_incast"));
}

TEST_CASE("fabricsim run reports bad input without crashing", "[cli]") {
  const Out missing = run("run no/such.yaml");
  REQUIRE(missing.status == 1);
  REQUIRE_THAT(missing.text, Catch::Contains("cannot open"));
  const Out bad = run("run scenarios/examples/incast_hpcc.yaml --set simulation.end=5");
  REQUIRE_THAT(bad.text, Catch::Contains("incast_hpcc.yaml"));
  REQUIRE(bad.status == 1);
  REQUIRE_THAT(bad.text, Catch::Contains("has no unit"));
  const Out level = run("--log-level loud run scenarios/examples/incast_hpcc.yaml");
  REQUIRE(level.status == 2);
  // An output folder that cannot be written fails at once, with the OS's reason, before any
  // simulation runs.
  const Out out = run("run scenarios/examples/incast_hpcc.yaml --out README.md/x");
  REQUIRE(out.status == 1);
  REQUIRE_THAT(out.text, Catch::Contains("cannot create the output folder README.md/x: Not a "
                                         "directory"));
  REQUIRE_THAT(out.text, !Catch::Contains("flows "));
  const Out zero = run("run scenarios/examples/incast_hpcc.yaml --threads 0");
  REQUIRE(zero.status == 1);
  REQUIRE_THAT(zero.text, Catch::Contains("'simulation.threads' must be between 1 and 1024"));
}

TEST_CASE("fabricsim bench phold runs and shows where time goes", "[cli]") {
  const Out b = run("bench phold --nodes 128 --end 10us --threads 2");
  REQUIRE(b.status == 0);
  REQUIRE_THAT(b.text, Catch::Contains("barrier"));
  REQUIRE_THAT(b.text, Catch::Contains("bare event list"));
  // Out of range: refused as the scenario keys are (0 events per node crashed the benchmark).
  const Out none = run("bench phold --events-per-node 0");
  REQUIRE(none.status == 2);
  REQUIRE_THAT(none.text, Catch::Contains("--events-per-node must be between 1 and 65536"));
  const Out lps = run("bench phold --nodes 8 --lps 9");
  REQUIRE(lps.status == 2);
  REQUIRE_THAT(lps.text, Catch::Contains("--lps 9 exceeds the 8 nodes"));
}

TEST_CASE("a command line that cannot be carried out exits 2, saying why", "[cli]") {
  // As the commands' own option checks do; 1 is for a run, scenario or validation that failed.
  // program_options read "-1" into an unsigned count as 4294967295: no option is negative.
  const std::pair<const char*, const char*> cases[] = {
      {"bench phold --nodes -1", "option values are never negative"},
      {"busbw scenarios/quickstart.yaml -f -2", "option values are never negative"},
      {"busbw scenarios/quickstart.yaml --channels -1", "option values are never negative"},
      {"run scenarios/quickstart.yaml --threads -.5", "option values are never negative"},
      {"bench phold --threads=-1", "option values are never negative"},
      {"validate -j-1", "option values are never negative"},
      {"run scenarios/quickstart.yaml -o x", "see --help"},
      {"busbw --no-such-option", "see --help"},
      {"bench phold --nodes many", "see --help"},
      {"validate --suite", "see --help"}};
  for (const auto& [args, says] : cases) {
    CAPTURE(args);
    const Out o = run(args);
    REQUIRE(o.status == 2);
    REQUIRE_THAT(o.text, Catch::Contains(says));
  }
}

TEST_CASE("fabricsim busbw sendrecv is nccl-tests': every rank sends to the next", "[cli]") {
  // Two hosts of 8 GPUs, a 400 Gb/s NIC each: ranks 7 -> 8 and 15 -> 0 cross the network, so
  // the NIC bounds the bus bandwidth (rank 0 -> 1 alone, over NVLink, gave ~10x more).
  const Out o = run("busbw scenarios/quickstart.yaml -b 64M -e 64M --collective sendrecv");
  REQUIRE(o.status == 0);
  // nccl-tests' sendrecv runs through its reduction-operator loop: the redop column says sum.
  REQUIRE_THAT(o.text, Catch::Contains("     float     sum      -1  "));
  const std::string row = o.text.substr(o.text.find("\n    67108864"));
  std::istringstream fields(row);
  std::string size, count, type, redop, root, time, algbw, busbw;
  fields >> size >> count >> type >> redop >> root >> time >> algbw >> busbw;
  CAPTURE(row);
  REQUIRE(std::stod(busbw) < 50);  // 400 Gb/s
  REQUIRE(std::stod(busbw) > 40);
}

TEST_CASE("fabricsim busbw prints numbers too wide for a column as nccl-tests does", "[cli]") {
  // nccl-tests' getFloatStr: two decimals while they fit, then one, none, an exponent.
  const Out slow = run(
      "busbw scenarios/quickstart.yaml -b 8G -e 8G --set cluster.host.gpus=1 --set "
      "cluster.host.nics=1 --set cluster.nic_link.rate=1Gbps --set simulation.fidelity=analytical");
  REQUIRE(slow.status == 0);
  REQUIRE_THAT(slow.text, Catch::Contains("     sum      -1  7.2e+07    0.12    0.12    N/A"));
  const Out fast =
      run("busbw scenarios/validation/h100-sxm5_1node.yaml -b 8G -e 8G --set "
          "cluster.host.gpu_link=40000Gbps --algo nvls");
  REQUIRE(fast.status == 0);
  REQUIRE_THAT(fast.text, Catch::Contains("  2788.07  3081.0  5391.7    N/A"));
}

TEST_CASE("fabricsim busbw with flags on a training or flows scenario says what it needs",
          "[cli]") {
  // Its flags set collectives keys: loading then complained of two kinds of run in one file.
  const Out training = run("busbw scenarios/examples/training_3d_single.yaml -b 1M -e 4M");
  REQUIRE(training.status == 1);
  REQUIRE_THAT(training.text, Catch::Contains("runs training, not collectives"));
  const Out flows = run("busbw scenarios/examples/incast_dcqcn.yaml -b 1M");
  REQUIRE(flows.status == 1);
  REQUIRE_THAT(flows.text, Catch::Contains("runs flows, not collectives"));
}

TEST_CASE("zero jobs and flags of another mode are refused, not ignored", "[cli]") {
  const Out jobs = run("busbw scenarios/quickstart.yaml --jobs 0");
  REQUIRE(jobs.status == 2);
  REQUIRE_THAT(jobs.text, Catch::Contains("--jobs 0"));
  const Out validate = run("validate -j 0");
  REQUIRE(validate.status == 2);
  REQUIRE_THAT(validate.text, Catch::Contains("-j 0: run at least one at once"));
  // --measured is a busbw log: with --suite training it started the whole training suite.
  const Out training =
      run("validate --suite training --measured tests/data/nccl_tests_logs/"
          "allreduce_h100-sxm5_4gpu_ring.log --scenario scenarios/validation/h100-sxm5_1node.yaml");
  REQUIRE(training.status == 2);
  REQUIRE_THAT(training.text, Catch::Contains("--suite busbw"));
  const Out write = run("info --write");
  REQUIRE(write.status == 2);
  REQUIRE_THAT(write.text, Catch::Contains("--docs FILE"));
}

TEST_CASE("fabricsim topo counts the incast example cluster and writes Graphviz", "[cli]") {
  const Out t = run("topo scenarios/examples/incast_hpcc.yaml --dot build/cli_test_out/incast.dot");
  REQUIRE(t.status == 0);
  // 4 leaves x 4 hosts, 4 spines: 16 NIC links + 16 leaf-spine links.
  REQUIRE_THAT(t.text, Catch::Contains("24: 16 NICs, 8 switches"));
  REQUIRE_THAT(t.text, Catch::Contains("links             32 (64 ports)"));
  FILE* fp = std::fopen("build/cli_test_out/incast.dot", "r");
  REQUIRE(fp != nullptr);
  char head[16] = {};
  REQUIRE(std::fread(head, 1, 5, fp) == 5);
  std::fclose(fp);
  REQUIRE(std::string(head) == "graph");
  REQUIRE(run("topo scenarios/examples/phold.yaml").status == 2);
}

TEST_CASE("fabricsim busbw prints nccl-tests' table, the same for every thread count", "[cli]") {
  const std::string args =
      "busbw scenarios/quickstart.yaml -b 1024 -e 1MiB -f 32 --op allgather --csv "
      "build/cli_test_out/busbw.csv";
  const Out one = run(args + " --threads 1");
  const Out two = run(args + " --threads 2");
  REQUIRE(one.status == 0);
  REQUIRE_THAT(one.text, Catch::Contains("#       size         count      type   redop    root"));
  REQUIRE_THAT(one.text, Catch::Contains("# Avg bus bandwidth"));
  // 1 KiB, 32 KiB, 1 MiB: three rows, counted per rank as nccl-tests' all_gather_perf counts
  // them (tests/data/busbw: 1024 B on 16 ranks is 16 floats).
  REQUIRE_THAT(one.text, Catch::Contains("        1024            16     float    none      -1"));
  REQUIRE_THAT(one.text, Catch::Contains("     1048576         16384     float    none      -1"));
  // The table is simulated; the run line (threads, LPs) and the final cost line may differ.
  const auto table = [](const std::string& t) {
    const auto a = t.find("# allgather");
    return t.substr(a, t.find("# simulated with") - a);
  };
  REQUIRE(table(one.text) == table(two.text));
  FILE* fp = std::fopen("build/cli_test_out/busbw.csv", "r");
  REQUIRE(fp != nullptr);
  std::fclose(fp);

  const Out bad_op = run("busbw scenarios/quickstart.yaml --op allreduse");
  REQUIRE(bad_op.status == 2);
  REQUIRE_THAT(bad_op.text, Catch::Contains("--op allreduse: expected a collective"));
  const Out no_coll = run("busbw scenarios/examples/incast_hpcc.yaml");
  REQUIRE(no_coll.status == 1);
  REQUIRE_THAT(no_coll.text, Catch::Contains("runs flows, not collectives"));
  const Out tiny = run("busbw scenarios/quickstart.yaml -b 4 -e 32 --op allgather");
  REQUIRE(tiny.status == 2);  // no size holds a float per rank
}

TEST_CASE("the analytical fidelity prints NCCL's model's table without a network run", "[cli]") {
  const Out a =
      run("busbw scenarios/quickstart.yaml -b 1MiB -e 64MiB -f 64 --set "
          "simulation.fidelity=analytical");
  REQUIRE(a.status == 0);
  REQUIRE_THAT(a.text, Catch::Contains("run: analytical"));
  REQUIRE_THAT(a.text, Catch::Contains("# analytical: NCCL's tuning model, no network run"));
  REQUIRE_THAT(a.text, !Catch::Contains("# simulated with"));
  REQUIRE_THAT(a.text, Catch::Contains("    67108864      16777216     float"));
  const Out p2p =
      run("busbw scenarios/quickstart.yaml --op alltoall --set "
          "simulation.fidelity=analytical");
  REQUIRE(p2p.status != 0);
  REQUIRE_THAT(p2p.text, Catch::Contains("analytical has no alltoall"));
  // validate: the same datasets against NCCL's own estimate.
  const Out v =
      run("validate --dataset allreduce_h100-sxm5_4gpu_nvswitch_algo-ring --fidelity "
          "analytical --max-error 99 --max-median-error 99");
  REQUIRE(v.status == 0);
  REQUIRE_THAT(v.text, Catch::Contains("allreduce_h100-sxm5_4gpu_nvswitch_algo-ring"));
  // Both side by side: the packet level's bar and exit status, NCCL's model beside it.
  const Out all =
      run("validate --dataset allreduce_h100-sxm5_4gpu_nvswitch_algo-ring --dataset "
          "sendrecv_a100-sxm4-80gb_2gpu_nvlink --fidelity all --ignore-known-gaps");
  REQUIRE(all.status == 0);
  REQUIRE_THAT(all.text, Catch::Contains("model med model max"));
  REQUIRE_THAT(all.text,
               Catch::Contains("NCCL's model (analytical): 1 of 1 datasets meet the bar"));
  REQUIRE_THAT(all.text, Catch::Contains("flow med  flow max"));
  REQUIRE_THAT(all.text, Catch::Contains("flow level: 1 of 2 datasets meet the bar"));
  const Out bad = run("validate --fidelity fluid");
  REQUIRE(bad.status != 0);
  REQUIRE_THAT(bad.text, Catch::Contains("--fidelity must be packet, flow, analytical or all"));
  // Training: a case timed by closed forms, with no network run.
  const Out t =
      run("validate --suite training --dataset narayanan21-1.7b --fidelity analytical "
          "--max-error 99");
  REQUIRE(t.status == 0);
  REQUIRE_THAT(t.text, Catch::Contains("narayanan21-1.7b                   analytical"));
}

TEST_CASE("the flow fidelity says what it simulates and what it leaves out", "[cli]") {
  const Out f = run("run scenarios/examples/incast_hpcc.yaml --set simulation.fidelity=flow");
  REQUIRE(f.status == 0);
  REQUIRE_THAT(f.text, Catch::Contains("network: fluid flows at max-min fair shares"));
  REQUIRE_THAT(f.text, Catch::Contains("run: flow level, seed 1, one LP"));
  REQUIRE_THAT(f.text, Catch::Contains("queues, losses    none at flow level"));
  REQUIRE_THAT(f.text, Catch::Contains("flows             8 of 8 finished"));
  REQUIRE_THAT(f.text, !Catch::Contains("PFC pauses"));
}

TEST_CASE("whole transfers at flow level: said in the run line, refused at packet level", "[cli]") {
  const Out w =
      run("busbw scenarios/quickstart.yaml -b 64MiB -e 64MiB --set simulation.fidelity=flow "
          "--set simulation.flow_transfers=whole");
  REQUIRE(w.status == 0);
  REQUIRE_THAT(w.text, Catch::Contains("run: flow level (whole transfers), seed 1"));
  const Out p = run("busbw scenarios/quickstart.yaml --set simulation.flow_transfers=whole");
  REQUIRE(p.status == 1);
  REQUIRE_THAT(p.text, Catch::Contains("'simulation.flow_transfers' is whole, which applies at "
                                       "the flow level only"));
  const Out fixed =
      run("busbw scenarios/quickstart.yaml --set simulation.fidelity=flow --set "
          "simulation.flow_transfers=whole --set collectives.step_latency=3us");
  REQUIRE(fixed.status == 1);
  REQUIRE_THAT(fixed.text, Catch::Contains("'collectives.step_latency' is a latency per step"));
}

TEST_CASE("fabricsim busbw on one GPU prints no inf or nan", "[cli]") {
  const Out one =
      run("busbw scenarios/quickstart.yaml --set cluster.hosts=1 --set cluster.host.gpus=1 -b 1KiB "
          "-e 4KiB");
  REQUIRE(one.status == 0);
  REQUIRE_THAT(one.text, !Catch::Contains("inf") && !Catch::Contains("nan"));
  REQUIRE_THAT(one.text, Catch::Contains("Avg bus bandwidth    : 0.0000"));
}

TEST_CASE("every collectives scenario shipped runs its smallest size", "[cli]") {
  for (const char* s :
       {"scenarios/quickstart.yaml", "scenarios/validation/h100-sxm5_1node.yaml",
        "scenarios/validation/a100-sxm4_1node.yaml",
        "scenarios/validation/dgx-a100_2node_ib-hdr.yaml",
        "scenarios/validation/h100_2node_ib-ndr.yaml", "scenarios/validation/h200_2node_roce.yaml",
        "scenarios/validation/alps-gh200.yaml", "scenarios/examples/nic_bandwidth_sweep.yaml",
        "scenarios/bench/simai_s1.yaml", "scenarios/bench/simai_s2.yaml",
        "scenarios/bench/simai_s3.yaml", "scenarios/bench/simai_s4.yaml",
        "scenarios/bench/allreduce_1024gpu.yaml"}) {
    CAPTURE(s);
    const Out o = run(std::string("busbw ") + s + " -b 64KiB -e 64KiB -q");
    REQUIRE(o.status == 0);
    REQUIRE_THAT(o.text, Catch::Contains("      65536 "));
  }
}

TEST_CASE("fabricsim validate runs one dataset and writes its CSV", "[cli]") {
  const Out v =
      run("validate --dataset allreduce_h100-sxm5_4gpu_nvswitch_algo-ring --csv "
          "build/cli_test_out/validate.csv");
  REQUIRE(v.status == 0);
  REQUIRE_THAT(v.text, Catch::Contains("allreduce_h100-sxm5_4gpu_nvswitch_algo-ring"));
  REQUIRE_THAT(v.text, Catch::Contains("1 of 1 datasets meet the bar"));
  // A manifest that is not there says where it was looked for and what to do.
  for (const char* suite : {"busbw", "training"}) {
    const Out missing = run(std::string("validate --suite ") + suite + " --manifest no/such.yaml");
    REQUIRE(missing.status == 1);
    REQUIRE_THAT(missing.text, Catch::Contains("no/such.yaml: cannot open the") &&
                                   Catch::Contains("run from the repository's top folder"));
  }
  // A dataset name that is not in the manifest is a typo, not an empty (passing) selection.
  for (const char* suite : {"busbw", "training"}) {
    const Out typo = run(std::string("validate --suite ") + suite + " --dataset nosuch");
    REQUIRE(typo.status == 2);
    REQUIRE_THAT(typo.text, Catch::Contains("--dataset nosuch: no such dataset or case"));
  }
}

TEST_CASE("fabricsim busbw --jobs runs sizes at once and prints the same table", "[cli]") {
  const std::string sweep = "busbw scenarios/quickstart.yaml -q -b 1K -e 64M -f 4";
  const Out one = run(sweep + " --csv build/cli_test_out/sizes1.csv");
  const Out three = run(sweep + " --jobs 3 --csv build/cli_test_out/sizes3.csv");
  REQUIRE(one.status == 0);
  REQUIRE(three.status == 0);
  // Everything but the simulator's own cost (the last line but the file it wrote).
  const auto table = [](const std::string& text) {
    return text.substr(0, text.find("# simulated with"));
  };
  REQUIRE(table(one.text) == table(three.text));
  REQUIRE_THAT(three.text, Catch::Contains(" sizes at once: "));
  REQUIRE(file_text("build/cli_test_out/sizes1.csv") == file_text("build/cli_test_out/sizes3.csv"));
  // A plan that cannot be made fails the same way.
  const Out bad1 = run(sweep + " --set collectives.algo=nvls");
  const Out bad3 = run(sweep + " --jobs 3 --set collectives.algo=nvls");
  REQUIRE(bad1.text == bad3.text);
  REQUIRE_THAT(
      bad3.text,
      Catch::Contains("NVLS across hosts reduces in the network's switches: it needs CollNet"));
}

TEST_CASE("fabricsim validate prints the same table for any number of jobs", "[cli]") {
  // Datasets run at once finish in any order; the table, the CSV and the datasets that fail to
  // run (NVLSTree forced on one host) come out in the manifest's order all the same.
  const std::string some =
      "validate --fidelity analytical --ignore-known-gaps --dataset "
      "allreduce_h100-sxm5_4gpu_nvswitch_algo-ring --dataset allreduce_dgx-h100_8gpu_nvswitch "
      "--dataset allreduce_nebius-h100_2node_16gpu_ib --dataset allreduce_dell-xe9680-h100_2node_"
      "16gpu_ib-ndr --dataset allreduce_alps-gh200_1node_4gpu_slingshot11 --set "
      "collectives.algo=nvlstree";
  const Out one = run(some + " -j 1 --csv build/cli_test_out/jobs1.csv");
  const Out two = run(some + " -j 3 --csv build/cli_test_out/jobs3.csv");
  REQUIRE(one.status == two.status);
  const auto table = [](const std::string& text) { return text.substr(0, text.find("wrote ")); };
  REQUIRE(table(one.text) == table(two.text));
  REQUIRE_THAT(one.text, Catch::Contains("error: allreduce_dgx-h100_8gpu_nvswitch") &&
                             Catch::Contains("allreduce_dell-xe9680-h100_2node_16gpu_ib-ndr "));
  REQUIRE(file_text("build/cli_test_out/jobs1.csv") == file_text("build/cli_test_out/jobs3.csv"));
  REQUIRE(file_text("build/cli_test_out/jobs1.csv").size() > 200);
}

TEST_CASE("fabricsim validate is a CI gate: exit status, bars and known gaps", "[cli]") {
  const std::string ring = "validate --dataset allreduce_h100-sxm5_4gpu_nvswitch_algo-ring";
  // Its median error is a few percent: inside the default bar, outside a 1% one.
  const Out strict = run(ring + " --max-median-error 1%");
  REQUIRE(strict.status == 1);
  REQUIRE_THAT(strict.text, Catch::Contains("bar (median <= 1%, max <= 15%, below 64K <= 25%)"));
  REQUIRE_THAT(strict.text, Catch::Contains("median |error| over every measured row"));
  REQUIRE_THAT(strict.text, Catch::Contains("MISSED"));
  REQUIRE(run(ring + " --max-median-error 50 --max-error 50").status == 0);
  // A known gap misses its bar: the gate fails unless told to let known gaps pass.
  const std::string gap = "validate --dataset allreduce_a100-sxm4-80gb_2gpu_nvlink";
  const Out missed = run(gap);
  REQUIRE(missed.status == 1);
  REQUIRE_THAT(missed.text, Catch::Contains("known gap"));
  REQUIRE(run(gap + " --ignore-known-gaps").status == 0);
  // Cluster-scale datasets (minutes each) run only when asked for: --scale, or by name.
  const Out quick = run("validate --fidelity analytical --ignore-known-gaps");
  REQUIRE_THAT(quick.text, Catch::Contains("2 cluster-scale datasets not run") &&
                               !Catch::Contains("alps-gh200_128node"));
  const Out named = run(
      "validate --fidelity analytical --dataset allreduce_alps-gh200_128node_512gpu_slingshot11");
  REQUIRE_THAT(named.text, Catch::Contains("alps-gh200_128node") &&
                               !Catch::Contains("cluster-scale datasets not run"));
  const Out bad = run(ring + " --max-error ten");
  REQUIRE(bad.status == 2);
  REQUIRE_THAT(bad.text, Catch::Contains("--max-error ten: expected a percentage"));
  // Training: the bar on the iteration time's error, and a CSV of the cases.
  const std::string one = "validate --suite training --dataset narayanan21-1.7b";
  const Out csv = run(one + " --max-error 99 --csv build/cli_test_out/training.csv");
  REQUIRE(csv.status == 0);
  std::ifstream f("build/cli_test_out/training.csv");
  std::string header, row;
  std::getline(f, header);
  std::getline(f, row);
  REQUIRE(header == "case,network,measured_s,simulated_s,error");
  REQUIRE_THAT(row, Catch::StartsWith("narayanan21-1.7b,isolated,3.53,"));
  REQUIRE(run(one + " --max-error 0.01").status == 1);
  REQUIRE_THAT(run(one + " --max-median-error 10").text,
               Catch::Contains("--max-median-error and --max-small-error apply to --suite busbw"));
}

TEST_CASE("fabricsim validate reads a user's own nccl-tests log", "[cli]") {
  // The log holds the rows of the algo-ring dataset in nccl-tests' stdout format (mpirun tags,
  // NCCL INFO lines and all): it must validate exactly as the dataset does.
  const std::string log = "tests/data/nccl_tests_logs/allreduce_h100-sxm5_4gpu_ring.log";
  const std::string scenario =
      " --scenario scenarios/validation/h100-sxm5_1node.yaml "
      "--set cluster.host.gpus=4 --set collectives.algo=ring";
  const std::string own = "validate --measured " + log + scenario;
  const Out mine = run(own);
  const Out dataset = run("validate --dataset allreduce_h100-sxm5_4gpu_nvswitch_algo-ring");
  REQUIRE(mine.status == 0);
  const auto errors = [](const std::string& text) {  // "... 4 3 3.2% 5.9% met"
    const std::size_t at = text.find("      4     3");
    return at == std::string::npos ? std::string() : text.substr(at, text.find('\n', at) - at);
  };
  REQUIRE_FALSE(errors(mine.text).empty());
  REQUIRE(errors(mine.text) == errors(dataset.text));
  // A log of another collective or rank count is not this scenario's experiment.
  const Out op = run(own + " --set collectives.op=allgather");
  REQUIRE(op.status == 1);
  REQUIRE_THAT(op.text, Catch::Contains("measured allreduce (all_reduce_perf)") &&
                            Catch::Contains("set collectives.op=allreduce"));
  const Out ranks = run(own + " --set cluster.host.gpus=8");
  REQUIRE(ranks.status == 1);
  REQUIRE_THAT(ranks.text, Catch::Contains("ran 4 ranks") && Catch::Contains("has 8"));
  REQUIRE_THAT(run("validate --measured " + log).text,
               Catch::Contains("--measured and --scenario go together"));
  REQUIRE_THAT(
      run("validate --measured scenarios/quickstart.yaml --scenario scenarios/quickstart.yaml")
          .text,
      Catch::Contains("no nccl-tests result row"));
  // A row that is not a measurement fails the gate, naming its line; it does not count as a
  // 0% error (nccl-tests prints nan for a size that failed).
  std::filesystem::create_directories("build/cli_test_out");
  const std::string nan_log = "build/cli_test_out/ring_nan.log";
  {
    std::ifstream in(log);
    std::ofstream out(nan_log);
    for (std::string line; std::getline(in, line);) {
      out << line << '\n';
      if (line.find("(elements)") != std::string::npos) {
        out << "      524288        131072     float     sum      -1       nan     nan     nan"
               "      0       nan     nan     nan      0\n";
      }
    }
  }
  const Out nan = run("validate --measured " + nan_log + scenario);
  REQUIRE(nan.status == 1);
  REQUIRE_THAT(nan.text, Catch::Contains("ring_nan.log:17: a bus bandwidth of nan GB/s"));
  // Nor is a size where nccl-tests found wrong results.
  // The log with one text replaced (the first place it occurs on each line).
  const auto replacing = [&](const std::string& to, const std::string& what,
                             const std::string& with) {
    std::ifstream in(log);
    std::ofstream out(to);
    for (std::string line; std::getline(in, line);) {
      const std::size_t at = line.find(what);
      if (at != std::string::npos) line.replace(at, what.size(), with);
      out << line << '\n';
    }
  };
  const std::string wrong_log = "build/cli_test_out/ring_wrong.log";
  replacing(wrong_log, "339.14      0 ", "339.14     12 ");
  const Out wrong = run("validate --measured " + wrong_log + scenario);
  REQUIRE(wrong.status == 1);
  REQUIRE_THAT(wrong.text, Catch::Contains("ring_wrong.log:17: nccl-tests counted 12 wrong"));
  // A run of one thread driving four GPUs (-g 4) is simulated so, with a note; its sizes all
  // take longer than four launches, so nothing moves. A process per GPU (nGpus 1) gets no note.
  const std::string g4_log = "build/cli_test_out/ring_g4.log";
  replacing(g4_log, "nThread 1 nGpus 1 ", "nThread 1 nGpus 4 ");
  const Out g4 = run("validate --measured " + g4_log + scenario);
  REQUIRE(g4.status == 0);
  REQUIRE_THAT(g4.text, Catch::Contains("note: " + g4_log +
                                        " drove 4 GPUs from each thread "
                                        "(nccl-tests -g 4): simulated with "
                                        "collectives.gpus_per_thread: 4"));
  REQUIRE(errors(g4.text) == errors(mine.text));
  REQUIRE_THAT(mine.text, !Catch::Contains("note:"));
  // The same log as srun -l labels it ("0: "), with a 0-byte row (NCCL launches nothing for it;
  // all-gather logs of many ranks start so), validates as the original; a second run appended
  // to it (another table, maybe another collective) is refused, not merged.
  const auto rewrite = [&](const std::string& to, bool twice) {
    std::ifstream in(log);
    std::ofstream out(to);
    std::string text;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("[1,0]<stdout>:", 0) == 0) line = "0: " + line.substr(14);
      text += line + '\n';
      if (line.find("(elements)") != std::string::npos) {
        text +=
            "0:            0             0     float     sum      -1     0.12    0.00    0.00"
            "      0     0.11    0.00    0.00      0\n";
      }
    }
    out << text << (twice ? text : "");
  };
  const std::string srun_log = "build/cli_test_out/ring_srun.log";
  rewrite(srun_log, false);
  const std::string srun = "validate --measured " + srun_log + scenario;
  const Out labelled = run(srun);
  REQUIRE(labelled.status == 0);
  REQUIRE(errors(labelled.text) == errors(dataset.text));
  rewrite(srun_log, true);
  const Out two_runs = run(srun);
  REQUIRE(two_runs.status == 1);
  REQUIRE_THAT(two_runs.text, Catch::Contains("ring_srun.log:26: a second nccl-tests run"));
  // Nothing compared is not a pass.
  const Out none = run(own + " --max-bytes 1MiB");
  REQUIRE(none.status == 1);
  REQUIRE_THAT(none.text, Catch::Contains("skipped: no measured size at or below --max-bytes") &&
                              Catch::Contains("no measured size was compared"));
}

TEST_CASE("fabricsim busbw prints nccl-tests' columns: read back as a log, it matches itself",
          "[cli]") {
  const Out table = run("busbw scenarios/quickstart.yaml -b 64KiB -e 4MiB -f 4 -q");
  REQUIRE(table.status == 0);
  // 13 columns per row, in-place group after the out-of-place one, as nccl-tests prints them.
  REQUIRE_THAT(table.text, Catch::Contains("busbw #wrong     time   algbw   busbw #wrong"));
  const std::string log = "build/cli_test_out/busbw_quickstart.log";
  {
    std::ofstream f(log);
    f << table.text;
  }
  // The log parser (written from nccl-tests' output format) reads all 4 rows; simulated
  // against the same scenario, each matches its own busbw to the printed precision (2 decimals:
  // under 0.2% at the smallest, 2.87 GB/s).
  const Out self = run("validate --measured " + log +
                       " --scenario scenarios/quickstart.yaml --max-median-error 0.05 "
                       "--max-error 0.2");
  REQUIRE(self.status == 0);
  REQUIRE_THAT(self.text, Catch::Contains("   16     4      0.0%"));
}

TEST_CASE("fabricsim busbw -J writes nccl-tests' JSON; validate --measured reads it back",
          "[cli]") {
  const std::string json = "build/cli_test_out/busbw_quickstart.json";
  const Out table = run("busbw scenarios/quickstart.yaml -b 1M -e 3M -i 1M -J " + json + " -q");
  REQUIRE(table.status == 0);
  // -i: a linear sweep, 1, 2 and 3 MiB.
  for (const char* size : {"     1048576 ", "     2097152 ", "     3145728 "}) {
    REQUIRE_THAT(table.text, Catch::Contains(size));
  }
  // Its own -J output, simulated again on the same scenario: every time matches exactly.
  const Out self = run("validate --measured " + json + " --scenario scenarios/quickstart.yaml");
  REQUIRE(self.status == 0);
  REQUIRE_THAT(self.text, Catch::Contains("   16     3      0.0%"));
  // Read as nccl-tests writes it: the collective from argv[0], 2 ranks (one device per process),
  // the in-place body where the out-of-place one is null, "nan" rows left out.
  const std::string theirs = "tests/data/nccl_tests_logs/allreduce_2rank_nccl-tests-J.json";
  const Out other = run("validate --measured " + theirs + " --scenario scenarios/quickstart.yaml");
  REQUIRE(other.status == 1);
  REQUIRE_THAT(other.text, Catch::Contains("ran 2 ranks"));
  const Out two = run("validate --measured " + theirs +
                      " --scenario scenarios/quickstart.yaml --set cluster.hosts=2"
                      " --set cluster.host.gpus=1 --max-median-error 1000 --max-error 1000"
                      " --max-small-error 1000");
  REQUIRE(two.status == 0);
  REQUIRE_THAT(two.text, Catch::Contains("     2     2 "));
  REQUIRE_THAT(run("validate --measured " + theirs +
                   " --scenario scenarios/quickstart.yaml --set collectives.op=allgather")
                   .text,
               Catch::Contains("measured allreduce (all_reduce_perf)"));
  // A linear sweep names one step, not two, and stays a few thousand sizes at most.
  REQUIRE(run("busbw scenarios/quickstart.yaml -b 1M -e 3M -i 1M -f 2 -q").status == 2);
  REQUIRE_THAT(run("busbw scenarios/quickstart.yaml -b 1 -e 1G -i 1 -q").text,
               Catch::Contains("at most 10000"));
  REQUIRE_THAT(run("busbw scenarios/quickstart.yaml --set collectives.step_bytes=2MiB -q").text,
               Catch::Contains("set step_factor: 1"));
}

TEST_CASE("fabricsim busbw takes nccl-tests' flags with their meanings", "[cli]") {
  const std::string base = "busbw scenarios/quickstart.yaml -b 1M -e 1M -q ";
  // The collective by its nccl-tests name; -o is the reduction operator, in the redop column.
  const Out gather = run(base + "--collective all_gather_perf");
  REQUIRE(gather.status == 0);
  REQUIRE_THAT(gather.text, Catch::Contains("# allgather on 16 GPUs"));
  const Out max = run(base + "-o max");
  REQUIRE(max.status == 0);
  REQUIRE_THAT(max.text, Catch::Contains("float     max      -1"));
  // --op with a collective name still selects the collective.
  REQUIRE_THAT(run(base + "--op allgather").text, Catch::Contains("# allgather on 16 GPUs"));
  // Run control that a deterministic simulation does not need is accepted and changes nothing.
  const Out plain = run(base);
  const Out control = run(base + "-n 20 -w 5 -c 1 -a 3 -z 0");
  REQUIRE(control.status == 0);
  const auto row = [](const std::string& t) { return t.substr(t.find("     1048576 ")); };
  REQUIRE(row(control.text).substr(0, 120) == row(plain.text).substr(0, 120));
  // -g N: one thread drives N GPUs of a host and enqueues each iteration's call on them in
  // turn, so a size takes at least N launches (collectives.launch_cost); the ranks still come
  // from the cluster, and N must divide a host's GPUs. -t changes nothing.
  const auto time_of = [](const std::string& text) {
    std::istringstream row(text.substr(text.find("\n           8 ") + 1));
    std::string field;
    for (int k = 0; k < 6; ++k) row >> field;  // size, count, type, redop, root, time
    return std::stod(field);
  };
  const std::string tiny = "busbw scenarios/quickstart.yaml -b 8 -e 8 -q ";
  const Out one = run(tiny);
  const Out g8 = run(tiny + "-g 8 -t 2");
  REQUIRE(g8.status == 0);
  REQUIRE_THAT(g8.text, Catch::Contains("# one thread drives 8 GPUs (nccl-tests -g 8)"));
  REQUIRE_THAT(one.text, !Catch::Contains("one thread drives"));
  REQUIRE_THAT(g8.text, Catch::Contains("# allreduce on 16 GPUs, 2 hosts"));
  REQUIRE(time_of(one.text) < 8 * 4.2);
  REQUIRE(time_of(g8.text) == Approx(8 * 4.2));
  // The launches overlap the collective: when they take less, the collective sets the pace.
  REQUIRE(time_of(run(tiny + "-g 8 --set collectives.launch_cost=1us").text) == time_of(one.text));
  const Out g3 = run(tiny + "-g 3");
  REQUIRE(g3.status == 1);  // a scenario error, as a root out of range is
  REQUIRE_THAT(g3.text, Catch::Contains("gpus_per_thread' (3) must divide every host's GPUs"));
  REQUIRE(run(base + "--collective all_foo").status == 2);
  REQUIRE(run(base + "--op allgather --collective all_reduce").status == 2);
  // The count column is nccl-tests' paramcount: 1 MiB of floats in all, per rank (16 GPUs) for
  // the ops whose buffers are split by rank.
  REQUIRE_THAT(gather.text, Catch::Contains("     1048576         16384     float"));
  REQUIRE_THAT(plain.text, Catch::Contains("     1048576        262144     float"));
  REQUIRE_THAT(run(base + "--op reducescatter").text,
               Catch::Contains("     1048576         16384     float"));
  // -f 1 adds -i, as nccl-tests does; -f 0 and -f 2 with -i are refused.
  const Out linear = run("busbw scenarios/quickstart.yaml -b 8 -e 24 -f 1 -i 8 -q");
  REQUIRE(linear.status == 0);
  REQUIRE_THAT(linear.text, Catch::Contains("\n           8 ") &&
                                Catch::Contains("\n          16 ") &&
                                Catch::Contains("\n          24 "));
  REQUIRE(run(base + "-f 0").status == 2);
  REQUIRE(run(base + "-f 2 -i 8").status == 2);
  // Sizes as nccl-tests' parsesize reads them: K, M, G in either case are powers of 1024,
  // whatever follows ("1MB" is 1 MiB there; fabricsim's own 1MB, 10^6, gave 10^6, 2 x 10^6).
  const Out sizes = run("busbw scenarios/quickstart.yaml -b 1MB -e 2m -f 2 -q");
  REQUIRE(sizes.status == 0);
  REQUIRE_THAT(sizes.text,
               Catch::Contains("\n     1048576 ") && Catch::Contains("\n     2097152 "));
  REQUIRE_THAT(run("busbw scenarios/quickstart.yaml -b 1k -e 1k -q").text,
               Catch::Contains("\n        1024 "));
  // -r: the root of broadcast and reduce, in the root column; a rank the cluster lacks is
  // refused as the scenario key would be.
  const Out root = run(base + "--collective broadcast -r 5");
  REQUIRE(root.status == 0);
  REQUIRE_THAT(root.text, Catch::Contains("float    none       5 "));
  const Out no_rank = run(base + "--collective reduce -r 16");
  REQUIRE(no_rank.status == 1);
  REQUIRE_THAT(no_rank.text, Catch::Contains("'collectives.root' must be between 0 and 15"));
}

TEST_CASE("every flows scenario shipped runs its first 50 us", "[cli]") {
  for (const char* s :
       {"scenarios/examples/cc_sweep.yaml", "scenarios/examples/routing_sweep.yaml",
        "scenarios/examples/incast_dcqcn.yaml", "scenarios/examples/incast_hpcc.yaml"}) {
    CAPTURE(s);
    const Out o = run(std::string("run ") + s + " --set simulation.end=50us");
    REQUIRE(o.status == 0);
    REQUIRE_THAT(o.text, Catch::Contains("flows"));
  }
}

namespace {

// A training scenario shipped runs with the smallest global batch its parallelism allows (the
// benchmark cases, scenarios/bench/, and the validation cases, the accuracy label, run
// elsewhere). The shared fabric (the default) moves every replica's gradients at packet level:
// minutes for the larger ones, so the suite runs those with each communication costed alone,
// and the small ones both ways. One test case per scenario, so that ctest runs them side by
// side (under AddressSanitizer they took 7.8 minutes in one).
void runs_shortened(const std::string& scenario, bool also_packet) {
  for (const char* mode : {"isolated", "packet"}) {
    if (!also_packet && std::string(mode) == "packet") continue;
    CAPTURE(scenario, mode);
    const Out o = run("run " + scenario + " --set training.network=" + mode);
    REQUIRE(o.status == 0);
    REQUIRE_THAT(o.text, Catch::Contains("iteration time") &&
                             Catch::Contains(std::string("network: ") + mode));
  }
}

}  // namespace

TEST_CASE("training scenario shipped runs a shortened iteration: TP sweep", "[cli]") {
  runs_shortened("scenarios/examples/training_tp_sweep.yaml --set training.global_batch=8", false);
}

TEST_CASE("training scenario shipped runs a shortened iteration: PP sweep", "[cli]") {
  runs_shortened("scenarios/examples/training_pp_sweep.yaml --set training.global_batch=2", false);
}

TEST_CASE("training scenario shipped runs a shortened iteration: DP sweep", "[cli]") {
  runs_shortened("scenarios/examples/training_dp_sweep.yaml --set training.global_batch=2", true);
}

TEST_CASE("training scenario shipped runs a shortened iteration: 3D on one switch", "[cli]") {
  runs_shortened("scenarios/examples/training_3d_single.yaml --set training.global_batch=4", false);
}

TEST_CASE("training scenario shipped runs a shortened iteration: 3D on a fat tree", "[cli]") {
  runs_shortened("scenarios/examples/training_3d_fat_tree.yaml --set training.global_batch=4",
                 false);
}

TEST_CASE("training scenario shipped runs a shortened iteration: 3D on a dragonfly", "[cli]") {
  runs_shortened("scenarios/examples/training_3d_dragonfly.yaml --set training.global_batch=4",
                 false);
}

TEST_CASE("training scenario shipped runs a shortened iteration: AICB import", "[cli]") {
  runs_shortened("scenarios/examples/aicb_import.yaml", true);
}

TEST_CASE("fabricsim run on several jobs: one summary per job, the fabric's once", "[cli]") {
  // The example with two small models: every replica at packet level in a fraction of a second.
  const std::string tiny =
      "{name: tiny, layers: 2, hidden: 256, heads: 8, seq_len: 256, vocab: 1024}";
  const Out o = run("run scenarios/examples/training_two_jobs.yaml --set 'training.model=" + tiny +
                    "' --set 'training.jobs.1.model=" + tiny +
                    "' --set training.global_batch=4 --out build/cli_test_out/jobs");
  REQUIRE(o.status == 0);
  REQUIRE_THAT(o.text, Catch::Contains("training: 2 jobs on one fabric of 64 GPUs"));
  REQUIRE_THAT(o.text, Catch::Contains("== job a on host0, host2, host4, host6, from the start"));
  REQUIRE_THAT(o.text, Catch::Contains("== job b on host1, host3, host5, host7, from 20ms"));
  REQUIRE_THAT(o.text, Catch::Contains("== shared fabric until the last job ends"));
  std::ifstream f("build/cli_test_out/jobs/results.json");
  const std::string json((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // Typed: read back with a JSON library, numbers are numbers and keys are as --set spells them.
  const nlohmann::json doc = nlohmann::json::parse(json);
  REQUIRE(doc.at("schema") == 2);
  REQUIRE(doc.at("config").at("simulation.seed") == 1);
  REQUIRE(doc.at("config").at("training.jobs.1.name") == "b");
  const nlohmann::json& jobs = doc.at("results").at("jobs");
  REQUIRE(jobs.size() == 2);
  REQUIRE(jobs.at(1).at("name") == "b");
  REQUIRE(jobs.at(1).at("start_s").get<double>() == Approx(0.02));
  REQUIRE(jobs.at(0).at("iteration_s").get<double>() > 0);
  REQUIRE(std::ifstream("build/cli_test_out/jobs/trace_b.json").good());
  // Which job's data crossed each link.
  REQUIRE_THAT(o.text, Catch::Contains("busiest links (busy share of the run): ") &&
                           Catch::Contains("(a ") && Catch::Contains("b "));
  std::ifstream ports("build/cli_test_out/jobs/ports.csv");
  std::string header;
  std::getline(ports, header);
  REQUIRE_THAT(header, Catch::EndsWith(",paused_us,data_bytes_a,data_bytes_b"));
  // Jobs share the fabric only at packet level, and never the same host.
  REQUIRE(
      run("run scenarios/examples/training_two_jobs.yaml --set training.network=isolated").status !=
      0);
  const Out twice =
      run("run scenarios/examples/training_two_jobs.yaml --set training.jobs.1.hosts=[1,2]");
  REQUIRE(twice.status != 0);
  REQUIRE_THAT(twice.text, Catch::Contains("host 2 (host2) is job a's already"));
  // A GPU given two straggler factors (the last one won, silently).
  const Out slow =
      run("run scenarios/examples/training_two_jobs.yaml --set \"training.stragglers=[{host: 0, "
          "factor: 1.5}, {host: 0, gpu: 1, factor: 2}]\"");
  REQUIRE(slow.status == 1);
  REQUIRE_THAT(slow.text, Catch::Contains("'training.stragglers[1].gpu' GPU 1 of host host0 is "
                                          "listed already"));
  // A job that lists one host twice (it read the name of a job not yet made: a crash).
  const Out same =
      run("run scenarios/examples/training_two_jobs.yaml --set training.jobs.1.hosts=[3,3]");
  REQUIRE(same.status == 1);
  REQUIRE_THAT(same.text, Catch::Contains("lists host 3 (host3) twice"));
}

TEST_CASE("training on the fabric reports the frames a failed link lost", "[cli]") {
  std::filesystem::create_directories("build/cli_test_out");
  const std::string yaml = "build/cli_test_out/training_failed_link.yaml";
  {
    std::ofstream f(yaml);
    f << "cluster:\n  topology: fat_tree\n  leaves: 2\n  hosts_per_leaf: 2\n"
         "  oversubscription: 2\n  host: {gpus: 2, gpu: H100, nics: 2, gpu_latency: 0ns}\n"
         "  nic_link: {rate: 100Gbps, delay: 500ns}\n  uplink: {rate: 100Gbps, delay: 500ns}\n"
         "  failed_links: [{a: host0.nic0, b: leaf0, at: 3ms, until: 3.5ms}]\n"
         "network:\n  cc: dcqcn\n"
         "training:\n  model: {name: tiny, layers: 4, hidden: 1024, heads: 16, seq_len: 512, "
         "vocab: 32000}\n  tp: 2\n  micro_batch: 1\n  global_batch: 4\n";
  }
  const Out o = run("run " + yaml);
  REQUIRE(o.status == 0);
  REQUIRE_THAT(o.text, Catch::Contains(" frames lost on failed links"));
}

TEST_CASE("fabricsim run on a training scenario writes its trace and results", "[cli]") {
  // Isolated: one data-parallel replica runs. Packet: all of them (two replicas on 4 hosts).
  const bool packet = GENERATE(false, true);
  const std::string out = "build/cli_test_out/training";
  const Out o = run(
      "run scenarios/examples/training_3d_single.yaml --set training.global_batch=4 " +
      std::string(packet ? "--set cluster.hosts=4 --set training.dp=2 --set training.network=packet"
                         : "--set training.network=isolated") +
      " --out " + out);
  REQUIRE(o.status == 0);
  // The shared fabric's run names where it was busiest, and writes every port's statistics.
  if (packet) {
    REQUIRE_THAT(o.text, Catch::Contains("busiest links (busy share of the iteration): "));
    std::ifstream ports(out + "/ports.csv");
    std::string header, row;
    REQUIRE(std::getline(ports, header));
    REQUIRE(std::getline(ports, row));
    REQUIRE_THAT(header, Catch::StartsWith("node,port,peer,rate_gbps") && Catch::Contains("busy"));
  }
  for (const char* f : {"/trace.json", "/results.json"}) {
    std::FILE* in = std::fopen((out + f).c_str(), "r");
    REQUIRE(in != nullptr);
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) text.append(buf, n);
    std::fclose(in);
    if (std::string(f) == "/trace.json") {
      REQUIRE_THAT(text, Catch::Contains("\"traceEvents\"") && Catch::Contains("\"ph\": \"X\"") &&
                             Catch::Contains("thread_name"));
      // Which ranks ran, the trace says.
      REQUIRE_THAT(text, Catch::Contains(packet ? "\"ranks\": \"all\""
                                                : "\"ranks\": \"the 16 ranks of dp replica 0"));
      // Slices of one stream never overlap: in whole nanoseconds, each ends at or before the
      // next one starts. (Not the pipeline receive stream, tid 3: receives are posted ahead and
      // wait for their data there, so several can be open at once.)
      std::map<std::pair<int, int>, std::vector<std::pair<long long, long long>>> streams;
      for (std::size_t at = text.find("\"pid\": "); at != std::string::npos;
           at = text.find("\"pid\": ", at + 1)) {
        int pid = 0, tid = 0;
        long long ts_us = 0, ts_ns = 0, dur_us = 0, dur_ns = 0;
        if (std::sscanf(text.c_str() + at,
                        "\"pid\": %d, \"tid\": %d, \"ts\": %lld.%3lld, \"dur\": %lld.%3lld", &pid,
                        &tid, &ts_us, &ts_ns, &dur_us, &dur_ns) != 6) {
          continue;  // a process or thread name
        }
        const long long ts = ts_us * 1000 + ts_ns;
        streams[{pid, tid}].push_back({ts, ts + dur_us * 1000 + dur_ns});
      }
      REQUIRE(streams.size() > 1);
      for (auto& [stream, slices] : streams) {
        if (stream.second == 3) continue;
        std::sort(slices.begin(), slices.end());
        for (std::size_t i = 1; i < slices.size(); ++i) {
          CAPTURE(stream.first, stream.second, i);
          REQUIRE(slices[i - 1].second <= slices[i].first);
        }
      }
    } else {
      REQUIRE_THAT(text, Catch::Contains("\"iteration_s\":") && Catch::Contains("\"mfu\":") &&
                             Catch::Contains("\"critical_compute_s\":") &&
                             Catch::Contains("\"critical_comm_s\":"));
      REQUIRE_THAT(
          text, Catch::Contains(packet ? "\"network\": \"packet\"" : "\"network\": \"isolated\""));
    }
  }
  // ops.csv: a row per slice of the trace, communication rows naming their collective and size.
  std::ifstream trace(out + "/trace.json");
  const std::string trace_text((std::istreambuf_iterator<char>(trace)),
                               std::istreambuf_iterator<char>());
  std::size_t slices = 0;
  for (std::size_t at = trace_text.find("\"ph\": \"X\""); at != std::string::npos;
       at = trace_text.find("\"ph\": \"X\"", at + 1)) {
    ++slices;
  }
  std::ifstream ops(out + "/ops.csv");
  std::string line;
  REQUIRE(std::getline(ops, line));
  REQUIRE(line ==
          "rank,tp,dp,pp,stream,op,category,micro_batch,layer,collective,bytes,group_ranks,"
          "start_us,end_us,duration_us");
  std::size_t rows = 0, comms = 0;
  while (std::getline(ops, line)) {
    ++rows;
    std::vector<std::string> f;
    for (std::size_t a = 0, b; a <= line.size(); a = b + 1) {
      b = line.find(',', a);
      if (b == std::string::npos) b = line.size();
      f.push_back(line.substr(a, b - a));
    }
    REQUIRE(f.size() == 15);
    const bool comm = f[6] == "communication";
    comms += comm;
    REQUIRE(f[9].empty() != comm);
    if (comm) REQUIRE(std::stoull(f[10]) > 0);
    REQUIRE(std::stod(f[14]) == Approx(std::stod(f[13]) - std::stod(f[12])).margin(2e-6));
  }
  REQUIRE(rows == slices);
  REQUIRE(comms > 0);
}

TEST_CASE("fabricsim info lists the registered keys and checks the docs", "[cli]") {
  const Out dcqcn = run("info network.dcqcn");
  REQUIRE(dcqcn.status == 0);
  REQUIRE_THAT(dcqcn.text, Catch::Contains("network.dcqcn.rate_ai") &&
                               Catch::Contains("default 5Mbps") &&
                               !Catch::Contains("network.hpcc"));
  const Out one = run("info cluster.host.gpus");
  REQUIRE(one.status == 0);
  REQUIRE_THAT(one.text,
               Catch::Contains("cluster.host.gpus") && !Catch::Contains("cluster.host.cpu"));
  const Out gpus = run("info gpus");
  REQUIRE(gpus.status == 0);
  REQUIRE_THAT(gpus.text, Catch::Contains("| `B200`, `B200-SXM` | Blackwell |") &&
                              Catch::Contains("| 0.74 |"));
  // A list section's own table, not the row that introduces it.
  const Out jobs = run("info training.jobs");
  REQUIRE_THAT(jobs.text, Catch::StartsWith("== training.jobs[i] ==") &&
                              Catch::Contains("training.jobs[i].hosts"));
  const Out md = run("info network.hpcc --markdown");
  REQUIRE_THAT(md.text, Catch::StartsWith("| key | type / unit | default | meaning |") &&
                            Catch::Contains("| `eta` |"));
  const Out typo = run("info netwrk.mtu");
  REQUIRE(typo.status == 1);
  REQUIRE_THAT(typo.text, Catch::Contains("no scenario key or section 'netwrk.mtu'") &&
                              Catch::Contains("did you mean 'network.mtu'?"));
  REQUIRE(run("info --docs docs/scenarios.md").status == 0);
  // A key table edited by hand is caught.
  const std::string copy = "build/cli_test_out/scenarios_edited.md";
  std::filesystem::create_directories("build/cli_test_out");
  {
    std::ifstream in("docs/scenarios.md");
    std::ofstream out(copy);
    std::string line;
    while (std::getline(in, line)) {
      if (line.starts_with("| `mtu` |")) line += " edited";
      out << line << '\n';
    }
  }
  const Out stale = run("info --docs " + copy);
  REQUIRE(stale.status == 1);
  REQUIRE_THAT(stale.text, Catch::Contains("differ from the registry"));
  REQUIRE(run("info --docs " + copy + " --write").status == 0);
  REQUIRE(run("info --docs " + copy).status == 0);
}
