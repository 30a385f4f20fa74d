// CANN metadef header name (emulated): error-message reporting of host code; the logging and
// check macros live in the emulated op log header.
#pragma once
#include "aopt_sim/host/op_log.h"

#include <cstdio>
#ifndef REPORT_INNER_ERR_MSG
#define REPORT_INNER_ERR_MSG(code, fmt, ...) std::fprintf(stderr, "[%s] " fmt "\n", code, ##__VA_ARGS__)
#endif
