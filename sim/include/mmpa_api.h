// CANN header name (emulated): mmpa_api.h, the toolkit's portability layer (include/experiment/
// mmpa). Only what host code of the corpus calls: mmGetTid() (cann-ops' AOE log macros print it).
#pragma once

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>

// The calling thread's id (Linux: gettid).
inline int32_t mmGetTid() { return static_cast<int32_t>(::syscall(SYS_gettid)); }
