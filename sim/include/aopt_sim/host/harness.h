// The sim harness entry point (docs/harness-protocol.md): `host --signature`, `host --run`.
// aopt_harness's main() calls it; exit codes: 0 result written (or signature printed),
// 2 malformed request, 3 internal error.
#pragma once

namespace aopt::sim::harness {
int harness_main(int argc, char** argv);
}
