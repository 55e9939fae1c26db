#!/usr/bin/env python3
"""DCQCN vs HPCC vs PFC alone on an oversubscribed leaf/spine fabric, from Python.

Question: with every NIC of a 2:1 leaf/spine fabric sending 4 MB to another in a random
permutation (scenarios/examples/routing_sweep.yaml), which congestion control finishes soonest,
how deep do the queues grow, and how unfair is the tail (p99 FCT slowdown)? Each point is one
`fabricsim.run`, the same run `fabricsim run --set ...` would make.

Run it (after the README's build):
    PYTHONPATH=build/release/python python3 scenarios/examples/cc_study.py
"""

import fabricsim

SCENARIO = "scenarios/examples/routing_sweep.yaml"

print(f"{'cc':8} {'seed':>4} {'fct max us':>11} {'p99 slowdown':>13} {'max queue MB':>13} "
      f"{'ECN marks':>10} {'PFC pauses':>11}")
for cc in ("none", "dcqcn", "hpcc"):
    for seed in (1, 2):
        # routing_sweep.yaml places out-of-order packets for spraying; ECMP keeps each flow on
        # one path, and HPCC needs that.
        r = fabricsim.run(SCENARIO, set={"network.cc": cc, "network.routing": "ecmp",
                                         "network.out_of_order": False,
                                         "simulation.seed": seed})
        res = r["results"]
        max_queue = max(p["max_queue_bytes"] for p in r["tables"]["ports"])
        # None: no flow finished, so there is no FCT.
        fct = "-" if res["fct_max_us"] is None else f"{res['fct_max_us']:.1f}"
        p99 = "-" if res["fct_slowdown_p99"] is None else f"{res['fct_slowdown_p99']:.2f}"
        print(f"{cc:8} {seed:>4} {fct:>11} {p99:>13} "
              f"{max_queue / 1e6:>13.2f} {res['ecn_marks']:>10} {res['pfc_pauses']:>11}")
