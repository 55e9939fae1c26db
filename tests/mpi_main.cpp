// Catch2's main for tests run under mpirun: MPI for the life of the process (core/ranks.hpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "core/ranks.hpp"

int main(int argc, char** argv) {
  const fabricsim::core::MpiSession mpi(&argc, &argv);
  return Catch::Session().run(argc, argv);
}
