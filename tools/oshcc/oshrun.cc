// oshrun: the gasket launcher under its OpenSHMEM name (same options as gasketrun and mpiexec).
#include "tools/gasketrun/launcher.h"

int main(int argc, char** argv) { return gasket::launcher::launcher_main(argc, argv, "oshrun"); }
