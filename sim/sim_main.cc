// filterlab-sim: the simulation worker (FP sampling, speed, memory floors,
// analytic models, probe search). See sim/commands.h and sim/README.md.
#include "sim/commands.h"

int main(int argc, char** argv) { return filterlab::sim::SimMain(argc, argv); }
