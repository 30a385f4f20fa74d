// CANN logging/check header name (emulated): see aopt_sim/host/op_log.h.
#pragma once
#include "aopt_sim/host/op_log.h"
// As the real header (through its dfx base): the log-level query of the slog API,
// AlogCheckDebugLevel(OP, DLOG_DEBUG), and the error-message report REPORT_INNER_ERR_MSG.
#include "base/alog_pub.h"
#include "base/err_msg.h"
