// Helpers of the spec_draft idiom tests: an OpDef attribute and the timed case of a given rank.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "aopt/evaluation/spec_draft.h"

namespace spec_draft_test {

// An attribute with OpDef default `def` (null: required, no default).
inline aopt::evaluation::draft_attr attr(const std::string& name, const std::string& type, nlohmann::json def) {
  aopt::evaluation::draft_attr a;
  a.name = name;
  a.type = type;
  a.required = def.is_null();
  a.default_value = def;
  return a;
}

// An operator of one float16 ND input `in` and one output `y` with these attributes.
inline aopt::evaluation::op_interface unary_op(const std::string& op_type, const std::string& kernel, const std::string& in,
                                              std::vector<aopt::evaluation::draft_attr> attrs) {
  aopt::evaluation::op_interface op;
  op.op_type = op_type;
  op.kernel = kernel;
  aopt::evaluation::draft_param x;
  x.name = in;
  x.dtypes = {"float16"};
  x.formats = {"ND"};
  op.inputs = {x};
  aopt::evaluation::draft_param y = x;
  y.name = "y";
  op.outputs = {y};
  op.attrs = std::move(attrs);
  return op;
}

// The timed case init drafts from op's first probe of `rank` (column 0, 2M elements).
inline aopt::evaluation::case_spec rank_case(const aopt::evaluation::op_interface& op, int rank,
                                             std::vector<std::string>& notes) {
  const auto attrs = aopt::evaluation::draft_attrs(op, 0, notes);
  for (const auto& p : aopt::evaluation::timed_probes(op, attrs, 100)) {
    if (p.rank == rank) return aopt::evaluation::probe_case(op, p, 0, "perf", true, 1 << 21, false, &notes);
  }
  ADD_FAILURE() << "no probe of rank " << rank;
  return {};
}

}  // namespace spec_draft_test
