// The /v1/ API over the job manager (docs/api.md): routes, query options, JSON bodies and errors.
#pragma once

#include "http.h"
#include "job_manager.h"

namespace aopt::daemon {

inline constexpr const char* api_version = "v1";

// Answers one request. Never throws: every failure is an error response.
http_response handle_api(job_manager& jobs, const http_request& req);

}  // namespace aopt::daemon
