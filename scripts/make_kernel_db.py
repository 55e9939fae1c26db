#!/usr/bin/env python3
"""Builds compute/data/kernels.csv, the starting kernel-timing database, from the published
measurements in shared/reference/e2e/ (each row keeps its source).

    scripts/make_kernel_db.py [--reference ../shared/reference/e2e] [--out compute/data/kernels.csv]

Rows taken:
  gemm       XLA's measured GEMM tables for sm_90 (H100) and sm_100 (B200), BF16 in and out
             (FP8 rows are left out: some exceed the dense peak; FP32 is not used by training).
  attention  FlashAttention-2 forward+backward throughput on A100 and H100 (the README's bar
             labels); the time is 3.5 x the forward FLOPs / throughput, the benchmark's own
             FLOP count (benchmarks/benchmark_flash_attention.py).
  memory     QuACK's softmax on H100 at 3.01 TB/s (Nsight Compute DRAM throughput).
"""
import argparse
import csv
import os
import sys

COLUMNS = ["gpu", "op", "dtype", "batch", "m", "n", "k", "heads", "seq", "head_dim", "causal",
           "pass", "bytes", "time_us", "source"]

XLA_GPUS = {"sm_90": "H100-SXM5-80GB", "sm_100_B200": "B200"}
FA_GPUS = {"A100 80GB SXM4": "A100-SXM4-80GB", "H100 80GB SXM5": "H100-SXM5-80GB"}


def row(**kw):
    out = {c: "" for c in COLUMNS}
    out.update({k: str(v) for k, v in kw.items()})
    return out


def gemm_rows(ref):
    with open(os.path.join(ref, "gemm_xla_measured_perf_table.csv"), newline="") as f:
        for r in csv.DictReader(f):
            gpu = XLA_GPUS.get(r["device_key"])
            if gpu is None or r["dtype_lhs_x_rhs_to_out"] != "bf16xbf16->bf16":
                continue
            yield row(gpu=gpu, op="gemm", dtype="bf16", batch=r["batch"], m=r["m"], n=r["n"],
                      k=r["k"], time_us=r["derived_kernel_time_us (=2bmnk/flops)"],
                      source=r["source"] + " (median of 5 profiled runs)")


def seq_len(text):
    return int(text[:-1]) * 1024 if text.endswith("k") else int(text)


def attention_rows(ref):
    with open(os.path.join(ref, "flash_attention_measured_tflops.csv"), newline="") as f:
        for r in csv.DictReader(f):
            gpu = FA_GPUS.get(r["gpu"])
            if gpu is None or r["implementation"] != "FlashAttention-2" or r["pass"] != "fwd+bwd":
                continue
            b, h, s, d = int(r["batch"]), int(r["num_heads"]), seq_len(r["seq_len"]), int(r["head_dim"])
            causal = r["causal"] == "yes"
            fwd = 4.0 * b * s * s * h * d * (0.5 if causal else 1.0)
            time_us = 3.5 * fwd / (float(r["measured_tflops"]) * 1e12) * 1e6
            yield row(gpu=gpu, op="attention", dtype="bf16", batch=b, heads=h, seq=s, head_dim=d,
                      causal=int(causal), **{"pass": "fwd+bwd"}, time_us=f"{time_us:.3f}",
                      source=r["source"] + f" ({r['measured_tflops']} TFLOP/s)")


def memory_rows(ref):
    with open(os.path.join(ref, "memory_bound_kernels_measured.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["implementation"] != "QuACK (CuTe-DSL)" or r["kernel"] != "softmax":
                continue
            # 16K rows x 131K columns of FP32, read once and written once.
            nbytes = 2 * 16 * 1024 * 131 * 1024 * 4
            tbps = float(r["measured_bandwidth_TBps"])
            yield row(gpu="H100-SXM5-80GB", op="memory", dtype="fp32", bytes=nbytes,
                      time_us=f"{nbytes / (tbps * 1e12) * 1e6:.3f}",
                      source=r["source"] + f" (softmax 16K x 131K FP32, {tbps} TB/s)")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--reference", default=os.path.join(here, "..", "..", "shared", "reference", "e2e"))
    p.add_argument("--out", default=os.path.join(here, "..", "compute", "data", "kernels.csv"))
    a = p.parse_args()
    rows = list(gemm_rows(a.reference)) + list(attention_rows(a.reference)) + list(memory_rows(a.reference))
    if not rows:
        sys.exit(f"error: no rows found under {a.reference}")
    with open(a.out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {a.out}")


if __name__ == "__main__":
    main()
