// CANN logging/check header name (emulated): see aopt_sim/host/op_log.h.
#pragma once
#include "aopt_sim/host/op_log.h"
// As the real header (through its dfx base): the log-level query of the slog API, AlogCheckDebugLevel(OP, DLOG_DEBUG).
#include "base/alog_pub.h"
