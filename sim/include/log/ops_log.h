// CANN logging/check header name (emulated): see aopt_sim/host/op_log.h. Like the real one it
// brings the log's level query and record functions (base/alog_pub.h: AlogCheckDebugLevel,
// DLOG_DEBUG, the module id OP), which shared tiling headers call directly.
#pragma once
#include "aopt_sim/host/op_log.h"
#include "base/alog_pub.h"
