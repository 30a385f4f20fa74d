// The traces of one launch (trace.h) as a file, so the timing model can replay a kernel's run
// under many device profiles without emulating it again (`aopt calibrate`). The harness writes
// it when run.json has "trace_file" (docs/harness-protocol.md). Little-endian binary, field by
// field (no struct dumps), versioned by its magic.
#pragma once

#include <filesystem>
#include <vector>

#include "aopt_sim/trace.h"

namespace aopt::sim {

// Throws std::runtime_error naming the file when it cannot be written.
void save_traces(const std::filesystem::path& file, const std::vector<core_trace>& traces);
// Throws std::runtime_error naming the file on a missing, truncated or foreign file.
std::vector<core_trace> load_traces(const std::filesystem::path& file);

}  // namespace aopt::sim
