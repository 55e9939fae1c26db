#include "collectives/tuner_constants.hpp"

#include <vector>

namespace fabricsim::collectives {
namespace {

constexpr std::size_t T = static_cast<std::size_t>(TableAlgo::Tree);
constexpr std::size_t R = static_cast<std::size_t>(TableAlgo::Ring);
constexpr std::size_t CND = static_cast<std::size_t>(TableAlgo::CollNetDirect);
constexpr std::size_t CNC = static_cast<std::size_t>(TableAlgo::CollNetChain);
constexpr std::size_t NVLS = static_cast<std::size_t>(TableAlgo::Nvls);
constexpr std::size_t NVLST = static_cast<std::size_t>(TableAlgo::NvlsTree);
constexpr std::size_t PAT = static_cast<std::size_t>(TableAlgo::Pat);
constexpr std::size_t NVL = 0, PCI = 1, NET = 2;  // hops
constexpr std::size_t HOPPER = 2, BLACKWELL = 3;  // arch rows (Volta 0, Ampere 1)

TunerConstants release_2_17_1() {
  TunerConstants c;
  c.since = 0;
  c.base_lat[T] = {4.4, 4.4, 0};
  c.base_lat[R] = {3.6, 10.0, 8.4};
  c.base_lat[CND] = c.base_lat[CNC] = {4.4, 4.4, 0};
  c.base_lat[NVLS] = {0, 0, 40.0};
  c.hw_lat[NVL][T] = {0.52, 1.25, 28};
  c.hw_lat[NVL][R] = {0.47, 1.9, 3.4};
  c.hw_lat[PCI][T] = {1.0, 1.9, 28};
  c.hw_lat[PCI][R] = {1.0, 2.5, 5.7};
  c.hw_lat[NET][T] = {5.0, 8.5, 28};
  c.hw_lat[NET][R] = {2.7, 4.0, 9.6};
  for (std::size_t h : {NVL, PCI}) c.hw_lat[h][CND] = c.hw_lat[h][CNC] = {0, 0, 8.0};
  c.hw_lat[NET][CND] = c.hw_lat[NET][CNC] = {0, 0, 10.7};
  // PAT (2.23 on) keeps one row in every release: 8 us base, 4 us per hop inside a host, and
  // the network's 14 us / 3.5 per log2 step (written into the formula before 2.28's table).
  c.base_lat[PAT] = {8.0, 8.0, 8.0};
  c.hw_lat[NVL][PAT] = c.hw_lat[PCI][PAT] = {0, 0, 4.0};
  c.hw_lat[NET][PAT] = {0, 0, 14.0 / 3.5};
  c.ll_max_bw = {NodeCaps{39.0, 39.0, 20.4}, NodeCaps{87.7, 22.5, 19.0}, NodeCaps{87.7, 22.5, 19.0},
                 NodeCaps{87.7, 22.5, 19.0}};
  // ll128MaxBwPerCh: one figure per architecture, for rings and trees.
  c.ring_ll128 = {NodeCaps{20, 20, 20}, NodeCaps{20, 20, 20}, NodeCaps{36.7, 36.7, 36.7},
                  NodeCaps{36.7, 36.7, 36.7}};
  c.tree_ll128 = c.ring_ll128;
  c.tree = {NodeCaps{26.5, 18.5, 10.0}, NodeCaps{24.0, 23.6, 17.8}, NodeCaps{38.7, 41.4, 33.0},
            NodeCaps{38.7, 41.4, 33.0}};
  c.nvls_tree = {NodeCaps{26.5, 18.5, 10.0}, NodeCaps{24.0, 23.6, 17.8}, NodeCaps{0, 57.7, 45.5},
                 NodeCaps{0, 96.0, 43.1}};
  c.ampere_bus_cap = 235.0;
  c.hopper_bus_cap = 370.0;
  c.ring_ll_quarter = c.ring_ar_all_nodes = c.ring_ll128_one_ppn_07 = true;
  c.has_nvls_tree = c.net_overhead_floor = c.tree_pattern_085 = c.one_ppn_tree_net = false;
  c.blackwell_rows = c.blackwell_nvls_tree_correction = false;
  c.nvls_formula = NvlsFormula::RingGraph;
  c.ll_intra_x18 = true;
  c.ring_plateau_hopper = 1.5;
  c.ring_plateau_below = 90;
  c.collnet_direct_arity_us = 0.5;
  return c;
}

// Every release whose constants differ from the one before, oldest first.
std::vector<TunerConstants> releases() {
  std::vector<TunerConstants> out{release_2_17_1()};
  const auto next = [&](int since) -> TunerConstants& {
    out.push_back(out.back());
    out.back().since = since;
    return out.back();
  };
  {
    TunerConstants& c = next(21800);  // 2.18.1
    c.base_lat[T] = {6.8, 14.0, 0};
    c.base_lat[R] = {6.6, 14.0, 8.4};
    c.base_lat[CND] = c.base_lat[CNC] = {6.8, 14.0, 0};
    c.base_lat[NVLS] = c.base_lat[NVLST] = {0, 0, 23.0};
    c.hw_lat[NVL][T] = {0.6, 1.25, 28};
    c.hw_lat[NVL][R] = {0.6, 1.9, 3.4};
    c.hw_lat[NVL][CNC] = {0, 0, 4.75};
    c.hw_lat[NET][R] = {2.7, 4.0, 14.0};
    c.hw_lat[NET][CNC] = {0, 0, 14};
    c.hw_lat[NET][NVLS] = {0, 0, 18};
    c.hw_lat[NET][NVLST] = {0, 0, 19};
    c.ampere_bus_cap = c.hopper_bus_cap = 0;
    c.nvls_tree_linear = c.has_nvls_tree = c.net_overhead_floor = true;
    c.ll_intra_x18 = false;
    c.nvls_formula = NvlsFormula::Heads;
    c.ring_plateau_hopper = 1.4;
    c.ring_plateau_below = 80;
  }
  {
    TunerConstants& c = next(21803);  // 2.18.3
    c.hw_lat[NVL][T][2] = 4;
    c.hw_lat[PCI][T][2] = 6;
    c.hw_lat[NET][T][2] = 14;
    c.tree_ll128[HOPPER] = c.tree_ll128[BLACKWELL] = {36.7, 36.7, 29.0};
    c.tree[HOPPER] = c.tree[BLACKWELL] = {38.7, 41.4, 36.0};
    c.tree_pattern_085 = true;
  }
  {
    TunerConstants& c = next(21900);  // 2.19.1
    for (std::size_t a : {CND, CNC, NVLS, NVLST}) c.base_lat[a] = {0, 0, 0};
    c.base_lat[T] = {6.8, 14.0, 0};
    for (std::size_t h : {NVL, PCI, NET}) c.hw_lat[h][T][2] = 28;
    for (std::size_t h : {NVL, PCI}) {
      c.hw_lat[h][CND] = {0, 0, 3.7};
      c.hw_lat[h][CNC] = {0, 0, 2.8};
    }
    c.hw_lat[NET][CND] = {0, 0, 31};
    c.hw_lat[NET][CNC] = {0, 0, 30};
    c.hw_lat[NVL][NVLS] = c.hw_lat[NVL][NVLST] = {0, 0, 23};
    c.hw_lat[NET][NVLST] = {0, 0, 14};
    c.nvls_tree_linear = false;
    c.collnet_direct_arity_us = 0.4;
  }
  {
    TunerConstants& c = next(22100);  // 2.21.5 (2.21.0-2.21.4 were never tagged)
    c.hw_lat[NVL][NVLS] = c.hw_lat[NVL][NVLST] = {0, 0, 25};
    c.ll_max_bw[HOPPER] = c.ll_max_bw[BLACKWELL] = {141.0, 45.0, 35.0};
    c.ring_ll_quarter = false;
  }
  {
    TunerConstants& c = next(22300);  // 2.23.4
    c.base_lat[T] = {6.8, 14.0, 8.4};
    c.hw_lat[NVL][T][2] = c.hw_lat[PCI][T][2] = 4.0;
    c.hw_lat[NET][T][2] = 14;
    c.ring_ar_all_nodes = c.ring_ll128_one_ppn_07 = false;
    c.one_ppn_tree_net = true;
  }
  {
    TunerConstants& c = next(22500);  // 2.25.1: Blackwell's own rows
    c.ll_max_bw[BLACKWELL] = {282.0, 90.0, 70.0};
    c.ring_ll128[BLACKWELL] = {73.4, 73.4, 73.4};
    c.tree_ll128[BLACKWELL] = {73.4, 73.4, 58.0};
    c.tree[BLACKWELL] = {77.4, 82.8, 72.0};
    c.blackwell_rows = true;
  }
  {
    TunerConstants& c = next(22800);  // 2.28.3
    c.tree_ll128[BLACKWELL] = {55.6, 31.67, 20.0};
    c.tree[BLACKWELL] = {70.0, 42.8, 24.0};
    c.nvls_formula = NvlsFormula::Efficiency;
  }
  next(22807).ring_ll128[BLACKWELL] = {73.4, 34.6, 73.4};  // 2.28.7
  {
    TunerConstants& c = next(22809);  // 2.28.9
    c.hw_lat[NET][NVLST] = {0, 0, 20.9};
    c.nvls_tree[BLACKWELL] = {0, 96.0, 43.8};
    c.blackwell_nvls_tree_correction = true;
  }
  next(22902).ring_ll128[BLACKWELL] = {34.5, 34.6, 34.5};  // 2.29.2
  next(22907).ring_ll128[BLACKWELL] = {40.0, 40.0, 40.0};  // 2.29.7
  next(23000).nvls_tree[BLACKWELL] = {0, 96.0, 80.0};      // 2.30.3
  return out;
}

}  // namespace

const TunerConstants& tuner_constants(int version) {
  static const std::vector<TunerConstants> all = releases();
  const TunerConstants* found = &all.front();
  for (const TunerConstants& c : all) {
    if (c.since <= version) found = &c;
  }
  return *found;
}

TableAlgo table_algo(Algo a) {
  switch (a) {
    case Algo::Tree:
      return TableAlgo::Tree;
    case Algo::Nvls:
      return TableAlgo::Nvls;
    case Algo::NvlsTree:
      return TableAlgo::NvlsTree;
    case Algo::CollNetChain:
      return TableAlgo::CollNetChain;
    case Algo::CollNetDirect:
      return TableAlgo::CollNetDirect;
    case Algo::Pat:
      return TableAlgo::Pat;
    default:
      return TableAlgo::Ring;  // Ring, P2P (the ring's primitives), Auto
  }
}

}  // namespace fabricsim::collectives
