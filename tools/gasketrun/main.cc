// gasketrun: runs the PEs of a gasket job on this machine. See README.md and --help.
#include "tools/gasketrun/launcher.h"

int main(int argc, char** argv) {
  return gasket::launcher::launcher_main(argc, argv, "gasketrun");
}
