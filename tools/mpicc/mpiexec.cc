// mpiexec / mpirun: gasket's launcher under the MPI names, with the option names of MPICH's and
// Open MPI's launchers (see tools/gasketrun/options.cc and docs/LAUNCHING.md).
#include <libgen.h>

#include <string>

#include "tools/gasketrun/launcher.h"

int main(int argc, char** argv) {
  std::string self = argv[0];
  std::string name = basename(&self[0]);
  return gasket::launcher::launcher_main(argc, argv, name);
}
