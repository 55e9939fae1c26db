#!/usr/bin/env bash
# Smoke test of tools/plot: the three subcommands write non-empty PNGs, and a missing column
# exits 2. Exits 77 (ctest SKIP_RETURN_CODE) when matplotlib is not importable.
#
#   tests/tools/plot_test.sh [path/to/tools/plot]
# PYTHON picks the interpreter (default python3). When it lacks matplotlib, tools/plot runs
# itself again with Debian's /usr/bin/python3 if that one has it (python3-matplotlib).
set -euo pipefail

py=${PYTHON:-python3}
plot=${1:-"$(cd "$(dirname "$0")/../.." && pwd)/tools/plot"}

if ! "$py" -c "import matplotlib" 2>/dev/null &&
  ! /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  echo "matplotlib not installed: skipped"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
png() {  # png FILE: exists, non-empty, PNG signature
  [ -s "$1" ] || fail "$1 missing or empty"
  [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = "211PNG" ] || fail "$1 is not a PNG"
}

# --- validate: two datasets; one row with measured 0 and an empty rel_error.
cat >"$tmp/validate.csv" <<'EOF'
dataset,collective,ranks,nodes,size_bytes,measured_busbw_GBps,simulated_busbw_GBps,rel_error,algo,proto,channels
ar_a,all_reduce,8,1,1024,0,0.1,,ring,ll,16
ar_a,all_reduce,8,1,1048576,50.0,55.0,0.1,ring,ll128,16
ar_a,all_reduce,8,1,16777216,200.0,190.0,-0.05,ring,simple,16
ar_a,all_reduce,8,1,1073741824,400.0,410.0,0.025,ring,simple,16
ag_b,all_gather,16,2,65536,2.0,3.0,0.5,ring,ll,8
ag_b,all_gather,16,2,4194304,80.0,72.0,-0.1,ring,simple,8
EOF
"$py" "$plot" validate "$tmp/validate.csv" -o "$tmp/val" >/dev/null
for f in ar_a ag_b summary; do png "$tmp/val/$f.png"; done
# --min-sizes 3: ag_b (two sizes) gets no plot of its own; the summary still lists it.
"$py" "$plot" validate "$tmp/validate.csv" -o "$tmp/val3" --min-sizes 3 --dpi 60 >/dev/null
for f in ar_a summary; do png "$tmp/val3/$f.png"; done
[ ! -e "$tmp/val3/ag_b.png" ] || fail "--min-sizes 3 plotted a dataset of two sizes"
if "$py" "$plot" validate "$tmp/validate.csv" -o "$tmp/val0" --min-sizes 0 2>/dev/null; then
  fail "--min-sizes 0 accepted"
fi

# --- busbw: two files, with labels.
header="size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps,algo,proto,channels"
{
  echo "$header"
  echo "1024,256,float,sum,-1,10.0,0.10,0.18,ring,ll,16"
  echo "1048576,262144,float,sum,-1,20.0,52.43,91.75,ring,ll128,16"
  echo "1073741824,268435456,float,sum,-1,4000.0,268.44,469.77,ring,simple,16"
} >"$tmp/busbw_a.csv"
{
  echo "$header"
  echo "1024,256,float,sum,-1,12.0,0.09,0.15,tree,ll,8"
  echo "1048576,262144,float,sum,-1,25.0,41.94,73.40,tree,ll128,8"
} >"$tmp/busbw_b.csv"
"$py" "$plot" busbw "$tmp/busbw_a.csv" "$tmp/busbw_b.csv" -o "$tmp/busbw.png" \
  --label ring --label tree >/dev/null
png "$tmp/busbw.png"

# --- sweep: values with units, grouped by a non-numeric column.
cat >"$tmp/sweep.csv" <<'EOF'
point,network.cc,cluster.nic_link.rate,fct_mean_us,end_us
1,dcqcn,100Gbps,82.1,90us
2,dcqcn,400Gbps,22.0,25us
3,dcqcn,1.6Tbps,7.1,8us
4,hpcc,100Gbps,80.5,88us
5,hpcc,400Gbps,21.0,24us
6,hpcc,1.6Tbps,6.9,7.5us
EOF
"$py" "$plot" sweep "$tmp/sweep.csv" -x cluster.nic_link.rate -y end_us --group network.cc \
  -o "$tmp/sweep.png" >/dev/null
png "$tmp/sweep.png"

# --- a missing column exits 2, names the column on stderr and writes nothing.
rc=0
"$py" "$plot" sweep "$tmp/sweep.csv" -x no_such_column -y end_us -o "$tmp/bad.png" \
  2>"$tmp/err.txt" || rc=$?
[ "$rc" -eq 2 ] || fail "missing column: exit status $rc, expected 2"
grep -q "no_such_column" "$tmp/err.txt" || fail "missing column not named: $(cat "$tmp/err.txt")"
[ ! -e "$tmp/bad.png" ] || fail "bad.png written despite the error"

rc=0
"$py" "$plot" validate "$tmp/busbw_a.csv" -o "$tmp/bad_dir" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "validate on a busbw CSV: exit status $rc, expected 2"

echo "plot_test: OK"
