"""The Python module against the command line: same results, typed values, errors as exceptions.
Run by ctest (label `python`) with PYTHONPATH at the build's python folder and FABRICSIM_EXE
naming the command-line binary of the same build."""

import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import fabricsim

INCAST = "scenarios/examples/incast_hpcc.yaml"
EXE = os.environ["FABRICSIM_EXE"]


class RunTest(unittest.TestCase):
    def test_same_results_as_the_command_line(self):
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([EXE, "run", INCAST, "--quiet", "--threads", "1", "--out", out],
                           check=True, capture_output=True)
            with open(os.path.join(out, "results.json")) as f:
                cli = json.load(f)
        r = fabricsim.run(INCAST, threads=1)
        self.assertEqual(r["results"], cli["results"])
        self.assertEqual(r["config"], cli["config"])
        self.assertEqual(r["kernel"]["events"], cli["kernel"]["events"])

    def test_typed_values_tables_and_summary(self):
        r = fabricsim.run(INCAST, set={"simulation.threads": 1})
        res = r["results"]
        self.assertIsInstance(res["fct_max_us"], float)
        self.assertIsInstance(res["flows_finished"], int)
        self.assertEqual(res["flows_finished"], res["flows"])
        self.assertIs(r["config"]["network.pfc"], True)
        self.assertEqual(r["config"]["network.cc"], "hpcc")
        flows = r["tables"]["flows"]
        self.assertEqual(len(flows), res["flows"])
        self.assertAlmostEqual(max(f["fct_us"] for f in flows), res["fct_max_us"], places=3)
        self.assertIn("ports", r["tables"])
        self.assertIn("flows", r["summary"])
        self.assertIn("FCT", r["summary"])

    def test_overrides_change_the_run(self):
        hpcc = fabricsim.run(INCAST, threads=1)
        dcqcn = fabricsim.run(INCAST, set=["network.cc=dcqcn"], threads=1)
        self.assertEqual(dcqcn["config"]["network.cc"], "dcqcn")
        self.assertIn("network.dcqcn.variant", dcqcn["config"])
        self.assertNotEqual(dcqcn["results"]["fct_max_us"], hpcc["results"]["fct_max_us"])

    def test_thread_count_does_not_change_results(self):
        one = fabricsim.run(INCAST, threads=1)
        two = fabricsim.run(INCAST, threads=2)
        self.assertEqual(one["results"], two["results"])

    def test_out_keeps_the_files(self):
        with tempfile.TemporaryDirectory() as out:
            fabricsim.run(INCAST, threads=1, out=out)
            for name in ("results.json", "flows.csv", "ports.csv"):
                self.assertTrue(os.path.exists(os.path.join(out, name)), name)

    def test_scenario_errors_raise_value_error_with_the_place(self):
        with self.assertRaises(ValueError) as e:
            fabricsim.run(INCAST, set={"network.mtu": "4096"})
        self.assertIn("network.mtu", str(e.exception))
        self.assertIn("has no unit", str(e.exception))
        with self.assertRaises(ValueError) as e:
            fabricsim.run("no/such/file.yaml")
        self.assertIn("no/such/file.yaml", str(e.exception))
        # An override without '=' names itself (it was "not enough values to unpack").
        with self.assertRaises(ValueError) as e:
            fabricsim.run(INCAST, set=["network.cc"])
        self.assertIn("'network.cc' is not 'key.path=value'", str(e.exception))

    def test_one_override_as_a_string(self):
        r = fabricsim.run(INCAST, set="network.cc=dcqcn", threads=1)
        self.assertEqual(r["config"]["network.cc"], "dcqcn")

    def test_runs_from_two_threads_keep_their_own_output(self):
        # One process stdout: each run captures it in turn. Swapped by both at once, one run's
        # summary went into the other's capture and stdout was left pointing at a closed file.
        alone = {cc: fabricsim.run(INCAST, set={"network.cc": cc}, threads=1)["results"]
                 for cc in ("hpcc", "dcqcn")}
        got = {}

        def one(cc):
            got[cc] = fabricsim.run(INCAST, set={"network.cc": cc}, threads=1)

        workers = [threading.Thread(target=one, args=(cc,)) for cc in alone]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        for cc, r in got.items():
            self.assertEqual(r["results"], alone[cc])
            # Its own summary, whole: one run's table, its own congestion control.
            self.assertIn("cc " + cc, r["summary"])
            self.assertEqual(r["summary"].count("FCT slowdown"), 1)
        # The process's stdout still works: a child writing to it is heard.
        out = subprocess.run([sys.executable, "-c", "print('still here')"], capture_output=True)
        self.assertEqual(out.stdout, b"still here\n")
        print("", end="", flush=True)


if __name__ == "__main__":
    unittest.main()
