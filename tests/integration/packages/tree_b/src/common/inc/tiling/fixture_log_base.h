// Fixture tree tree_b: a shared tiling base asking the log whether debug records are printed
// before it formats them.
#ifndef TREE_B_FIXTURE_LOG_BASE_H
#define TREE_B_FIXTURE_LOG_BASE_H
#include <cstdint>
#include <cstdio>
#include "log/ops_log.h"

namespace optiling {
inline void TreeBDumpTiling(const char* name, uint64_t key)
{
    if (AlogCheckDebugLevel(static_cast<int32_t>(OP), DLOG_DEBUG) == 1) {
        std::fprintf(stderr, "%s: tiling key %llu\n", name, static_cast<unsigned long long>(key));
    }
}
}  // namespace optiling
#endif
