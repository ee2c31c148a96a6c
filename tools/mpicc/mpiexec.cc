// mpiexec / mpirun: gasket's launcher under the MPI names (accepts -n N and -np N).
#include <libgen.h>

#include <string>

#include "tools/gasketrun/launcher.h"

int main(int argc, char** argv) {
  std::string self = argv[0];
  std::string name = basename(&self[0]);
  return gasket::launcher::launcher_main(argc, argv, name);
}
