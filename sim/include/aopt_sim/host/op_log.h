// Logging and check macros of CANN operator host code (OP_LOGD/I/W/E, OP_TILING_CHECK,
// OPS_CHECK_NULL_WITH_CONTEXT, OP_CHECK_IF, ...). Messages go to stderr as
// "[E] <node>: message"; debug/info lines only when AOPT_OP_LOG=debug|info. A failing check
// runs its action (usually `return ge::GRAPH_FAILED`), as the real macros do. Every macro is
// #ifndef-guarded so an operator's own definition wins.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "graph/ge_error_codes.h"

namespace gert {
class ExtendedKernelContext;
class TilingParseContext;
}  // namespace gert

namespace aopt::sim::host {

inline int op_log_level() {  // 0 debug, 1 info, 2 warning, 3 error
  static const int level = [] {
    const char* e = std::getenv("AOPT_OP_LOG");
    if (e == nullptr) return 2;
    if (std::strcmp(e, "debug") == 0) return 0;
    if (std::strcmp(e, "info") == 0) return 1;
    if (std::strcmp(e, "error") == 0) return 3;
    return 2;
  }();
  return level;
}

inline const char* op_log_name(const char* s) { return s != nullptr ? s : "?"; }
inline const char* op_log_name(const std::string& s) { return s.c_str(); }
template <class Ctx, class = std::enable_if_t<std::is_class_v<Ctx>>>
inline const char* op_log_name(const Ctx* ctx) {
  return ctx != nullptr ? ctx->GetNodeName() : "?";
}

inline void op_log(int level, const char* tag, const char* name, const char* fmt, ...) {
  if (level < op_log_level()) return;
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "[%s] %s: %s\n", tag, name, buf);
}

}  // namespace aopt::sim::host

#define AOPT_OP_LOG_(level, tag, name, ...) \
  ::aopt::sim::host::op_log(level, tag, ::aopt::sim::host::op_log_name(name), __VA_ARGS__)

#ifndef OP_LOGD
#define OP_LOGD(name, ...) AOPT_OP_LOG_(0, "D", name, __VA_ARGS__)
#endif
#ifndef OP_LOGI
#define OP_LOGI(name, ...) AOPT_OP_LOG_(1, "I", name, __VA_ARGS__)
#endif
#ifndef OP_LOGW
#define OP_LOGW(name, ...) AOPT_OP_LOG_(2, "W", name, __VA_ARGS__)
#endif
#ifndef OP_LOGE
#define OP_LOGE(name, ...) AOPT_OP_LOG_(3, "E", name, __VA_ARGS__)
#endif
#ifndef OP_LOGE_WITHOUT_REPORT
#define OP_LOGE_WITHOUT_REPORT(name, ...) AOPT_OP_LOG_(3, "E", name, __VA_ARGS__)
#endif
#ifndef OPS_LOG_D
#define OPS_LOG_D(name, ...) OP_LOGD(name, __VA_ARGS__)
#endif
#ifndef OPS_LOG_I
#define OPS_LOG_I(name, ...) OP_LOGI(name, __VA_ARGS__)
#endif
#ifndef OPS_LOG_W
#define OPS_LOG_W(name, ...) OP_LOGW(name, __VA_ARGS__)
#endif
#ifndef OPS_LOG_E
#define OPS_LOG_E(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif
#ifndef VECTOR_INNER_ERR_REPORT_TILIING
#define VECTOR_INNER_ERR_REPORT_TILIING(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif
#ifndef VECTOR_INNER_ERR_REPORT_TILING
#define VECTOR_INNER_ERR_REPORT_TILING(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif
#ifndef VECTOR_INFER_SHAPE_INNER_ERR_REPORT
#define VECTOR_INFER_SHAPE_INNER_ERR_REPORT(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif
#ifndef CUBE_INNER_ERR_REPORT
#define CUBE_INNER_ERR_REPORT(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif
#ifndef OPS_REPORT_VECTOR_INNER_ERR
#define OPS_REPORT_VECTOR_INNER_ERR(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif
#ifndef OPS_REPORT_CUBE_INNER_ERR
#define OPS_REPORT_CUBE_INNER_ERR(name, ...) OP_LOGE(name, __VA_ARGS__)
#endif

#ifndef OP_TILING_CHECK
#define OP_TILING_CHECK(cond, log_func, expr) \
  do {                                        \
    if (cond) {                               \
      log_func;                               \
      expr;                                   \
    }                                         \
  } while (0)
#endif
#ifndef OP_CHECK_IF
#define OP_CHECK_IF(cond, log_func, expr) OP_TILING_CHECK(cond, log_func, expr)
#endif
#ifndef OP_CHECK
#define OP_CHECK(cond, log_func, expr) OP_TILING_CHECK(cond, log_func, expr)
#endif
#ifndef OPS_CHECK
#define OPS_CHECK(cond, log_func, expr) OP_TILING_CHECK(cond, log_func, expr)
#endif
#ifndef OPS_ERR_IF
#define OPS_ERR_IF(cond, log_func, expr) OP_TILING_CHECK(cond, log_func, expr)
#endif
#ifndef OP_LOGE_IF
#define OP_LOGE_IF(cond, ret, name, ...) \
  do {                                   \
    if (cond) {                          \
      OP_LOGE(name, __VA_ARGS__);        \
      return ret;                        \
    }                                    \
  } while (0)
#endif
#ifndef OPS_CHECK_NULL_WITH_CONTEXT_RET
#define OPS_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret)                         \
  do {                                                                             \
    if ((ptr) == nullptr) {                                                        \
      OP_LOGE(context, "%s is nullptr (%s:%d)", #ptr, __FILE__, __LINE__);         \
      return ret;                                                                  \
    }                                                                              \
  } while (0)
#endif
#ifndef OPS_CHECK_NULL_WITH_CONTEXT
#define OPS_CHECK_NULL_WITH_CONTEXT(context, ptr) OPS_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ::ge::GRAPH_FAILED)
#endif
#ifndef OP_CHECK_NULL_WITH_CONTEXT
#define OP_CHECK_NULL_WITH_CONTEXT(context, ptr) OPS_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ::ge::GRAPH_FAILED)
#endif
#ifndef OP_CHECK_NULL_WITH_CONTEXT_RET
#define OP_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret) OPS_CHECK_NULL_WITH_CONTEXT_RET(context, ptr, ret)
#endif
