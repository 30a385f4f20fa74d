// An evaluation device as every part of aopt names it (CAF-free: included by the daemon, the
// node and the command line; messages.hpp adds its CAF inspector so it can travel).
#pragma once

#include <string>
#include <vector>

namespace aopt::protocols {

// A sim slot with its profile, or an NPU. Devices of one profile form a class: a job's
// evaluations go only to devices of its class, and latencies are compared only within it. A
// remote evaluator node describes its devices with these when it registers.
struct device_info {
  std::string id;       // unique within its node ("sim0", "npu3")
  std::string node;     // the evaluator node that has it; "" = this process
  std::string kind;     // "sim" or "npu"
  // Its class: the device profile's name ("910b4"), an npu's command profile's [cann] name; ""
  // serves any job. The API's and the metrics' JSON still call it "profile"; on the wire (CAF's
  // binary form, by position) nothing changed, so nodes of either version understand each other.
  std::string device_class;
  std::vector<std::string> labels;
  // The sim profile of its chip, which a search for its class estimates with: for a sim device
  // its profile; for an npu device (class = its command profile's [cann] name) the chip's.
  std::string chip = {};

  // "sim0" here, "node/sim0" on a node: how reports, the API and metrics name it.
  std::string name() const { return node.empty() ? id : node + "/" + id; }
};

}  // namespace aopt::protocols
