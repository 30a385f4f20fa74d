// Records to and from their wire form (protocols::wire<T>: the JSON text of optimize::to_json),
// the only conversion between the search's types and the network-ready messages. Exact both
// ways (nlohmann prints doubles so that they read back bit-equal).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "aopt/common/error.h"
#include "aopt/optimize/optimizer.h"
#include "aopt/optimize/services.h"
#include "aopt/protocols/messages.hpp"
#include "aopt/search/rewind.h"

namespace aopt::actors {

template <class T>
protocols::wire<T> pack(const T& record) {
  // Strings that are not UTF-8 (a proposal quoting a binary file) are replaced, not fatal; source
  // files are kept exact by the records' own JSON form.
  return {optimize::to_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)};
}

// Throws aopt::error(parse_error) when the text is not the record's JSON (a broken peer, or one
// of another version).
template <class T>
T unpack(const protocols::wire<T>& w) {
  try {
    return nlohmann::json::parse(w.json).template get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw aopt::error(ec::parse_error, std::string("a message's record does not read back (") +
                                           e.what() +
                                           "): the actor that sent it is broken or of another version");
  }
}

// A request to the evaluator pool: its body and the route read from it (messages.hpp, eval_route).
inline protocols::eval_envelope pack_routed(const optimize::eval_request& r) {
  return {{r.package, r.stage, r.device}, pack(r)};
}

// What the rewind loop needs of an evaluation.
search::rewind_eval to_rewind_eval(const optimize::eval_report& r);

}  // namespace aopt::actors
