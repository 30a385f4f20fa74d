// main() of every candidate host executable on the sim backend.
#include "aopt_sim/host/harness.h"

int main(int argc, char** argv) { return aopt::sim::harness::harness_main(argc, argv); }
