#!/usr/bin/env bash
# Installs the Debian packages fabricsim needs, and only those that are missing: a machine
# that has them all is left untouched (no apt-get call at all).
set -euo pipefail

packages=(
  g++ cmake ninja-build ccache
  libboost-graph-dev libboost-program-options-dev
  libyaml-cpp-dev libspdlog-dev libfmt-dev catch2 libtbb-dev
  nlohmann-json3-dev  # results.json
  libprotobuf-dev protobuf-compiler  # Chakra execution traces (workload/chakra_import)
  pybind11-dev python3-dev  # the Python module (tools/python)
  clang libclang-rt-14-dev  # the fuzz stage of scripts/test.sh (libFuzzer)
  python3-matplotlib  # tools/plot only
  libopenmpi-dev openmpi-bin  # runs over MPI ranks (core/ranks.hpp, mpirun)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "fabricsim: installing missing Debian packages: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
