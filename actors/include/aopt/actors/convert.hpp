// Conversions between the optimizer's types (optimize/services.h, optimizer.h) and the
// network-ready messages of protocols/messages.hpp. Exact both ways: doubles are copied, JSON
// objects are dumped and parsed (nlohmann prints doubles so that they read back bit-equal).
#pragma once

#include <string>

#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"
#include "aopt/protocols/messages.hpp"
#include "aopt/search/rewind.h"

namespace aopt::actors {

protocols::eval_request_msg to_message(const optimize::eval_request& r, const std::string& package);
optimize::eval_request from_message(const protocols::eval_request_msg& m);

protocols::eval_report_msg to_message(const optimize::eval_report& r);
// Throws aopt::error(parse_error) when a JSON field does not parse (a broken remote peer).
optimize::eval_report from_message(const protocols::eval_report_msg& m);

protocols::progress_msg to_message(const optimize::progress_event& e);
optimize::trajectory_point point_of(const protocols::progress_msg& m);  // valid when m.has_point

protocols::optimize_job_msg to_message(const std::string& package, const optimize::file_map& base,
                                       const optimize::optimizer_config& cfg);
optimize::optimizer_config config_of(const protocols::optimize_job_msg& m);

// What the rewind loop needs of an evaluation.
search::rewind_eval to_rewind_eval(const optimize::eval_report& r);

// A report for a candidate the system could not evaluate (timeout, dead evaluator).
protocols::eval_report_msg failure_report(const std::string& status, const std::string& diagnostic);

}  // namespace aopt::actors
