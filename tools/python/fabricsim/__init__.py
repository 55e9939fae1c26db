"""fabricsim from Python: run a scenario, get its results as Python values.

    import fabricsim
    r = fabricsim.run("scenarios/examples/incast_hpcc.yaml", set={"network.cc": "dcqcn"})
    r["results"]["fct_max_us"]        # numbers are numbers; None where unknown
    r["config"]["network.cc"]         # every resolved key, spelled as --set takes it
    r["tables"]["flows"][0]["fct_us"] # the CSVs the run writes, one dict per row
    print(r["summary"])               # what `fabricsim run` prints

A run is `fabricsim run SCENARIO --out DIR --set ...` in this process: the same results, bit
for bit, as the command line gives (results.json and the CSVs, read back). Scenario errors
raise ValueError with the command line's message (file:line: key ...).
"""

import csv
import json
import os
import tempfile

from ._fabricsim import run_into

__all__ = ["run", "frame"]


def _number(text):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _table(path):
    with open(path, newline="") as f:
        return [{k: _number(v) for k, v in row.items()} for row in csv.DictReader(f)]


def _sets(set):
    if set is None:
        return []
    if isinstance(set, str):
        set = [set]  # one "key=value", as a single --set
    if isinstance(set, dict):
        items = set.items()
    else:
        items = []
        for s in set:
            if not isinstance(s, str) or "=" not in s:
                raise ValueError(f"set: {s!r} is not 'key.path=value' (or pass a dict)")
            items.append(s.split("=", 1))
    out = []
    for key, value in items:
        if isinstance(value, bool):
            value = "true" if value else "false"
        out.append(f"{key}={value}")
    return out


def run(scenario, set=None, threads=None, out=None):
    """Runs a scenario file; returns a dict with 'config', 'results', 'kernel' (results.json),
    'tables' (each CSV the run wrote, as a list of dicts: flows, ports, fct_slowdown for flows
    runs; busbw for collectives; ports for training at packet level) and 'summary' (the text
    `fabricsim run` prints).

    set: overrides, {"network.cc": "hpcc"}, ["network.cc=hpcc"] or one "network.cc=hpcc" (as --set).
    threads: worker threads (as --threads). out: keep the output files in this folder (by
    default they go to a temporary folder that is removed).
    """
    sets = _sets(set)
    if threads is not None:
        sets.append(f"simulation.threads={threads}")
    if out is None:
        with tempfile.TemporaryDirectory(prefix="fabricsim-") as tmp:
            return _run(scenario, sets, tmp)
    os.makedirs(out, exist_ok=True)
    return _run(scenario, sets, out)


def _run(scenario, sets, out):
    summary = run_into(os.fspath(scenario), sets, os.fspath(out))
    path = os.path.join(out, "results.json")
    if not os.path.exists(path):
        raise RuntimeError(f"{scenario}: the run wrote no results.json (a PHOLD scenario?)")
    with open(path) as f:
        result = json.load(f)
    result["tables"] = {
        name[: -len(".csv")]: _table(os.path.join(out, name))
        for name in sorted(os.listdir(out))
        if name.endswith(".csv")
    }
    result["summary"] = summary
    return result


def frame(result, table):
    """One of a result's tables as a pandas DataFrame (needs pandas: Debian's python3-pandas)."""
    import pandas

    return pandas.DataFrame(result["tables"][table])
