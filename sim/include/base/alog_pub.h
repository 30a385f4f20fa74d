// CANN log header name (emulated): the log-level query and record functions host code calls
// directly (AlogCheckDebugLevel, AlogRecord), the DLOG_* levels and the module id OP. Records
// go through the emulated op log (aopt_sim/host/op_log.h): stderr, by AOPT_OP_LOG's level.
#pragma once

#include <cstdarg>
#include <cstdio>

#include "aopt_sim/host/op_log.h"

#ifndef DLOG_DEBUG
#define DLOG_DEBUG 0
#define DLOG_INFO 1
#define DLOG_WARN 2
#define DLOG_ERROR 3
#endif
#ifndef DLOG_TYPE_DEBUG
#define DLOG_TYPE_DEBUG 0
#define DLOG_TYPE_RUN 1
#endif

// Module ids of the log: the operator module and the tuning module (TUNE: cann-ops' AOE log macros,
// common/op_host/op_tiling/aoe/runtime_kb/common/kb_log.h). sim prints every module alike, so the
// values are ours [ASSUMED: not the toolkit's numbering].
enum AoptAlogModuleId : int { OP = 0, TUNE = 1 };

// 1 when records of `level` (DLOG_DEBUG..DLOG_ERROR) are printed, else 0.
inline int AlogCheckDebugLevel(int moduleId, int level) {
  static_cast<void>(moduleId);
  return level >= ::aopt::sim::host::op_log_level() ? 1 : 0;
}
inline void AlogRecord(int moduleId, int logType, int level, const char* fmt, ...) {
  static_cast<void>(moduleId);
  static_cast<void>(logType);
  if (AlogCheckDebugLevel(moduleId, level) != 1) return;
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  static const char* const tags[] = {"D", "I", "W", "E"};
  std::fprintf(stderr, "[%s] %s\n", tags[level < 0 ? 0 : level > 3 ? 3 : level], buf);
}
