// Seeded fuzzer of the spec readers: aopt.json (parse_op_spec), msOpST case files
// (parse_msopst_cases) and, for every 50th input, the package loader on disk (load_package).
// Each input is a valid seed file changed by 1-6 mutations (bytes, tokens, JSON values,
// nesting), all drawn from a generator seeded with (seed, iteration), so one input can be
// reproduced alone. An input passes when it parses (and its canonical JSON dumps and its case
// memory is checked) or ends in aopt::error(parse_error | invalid_spec) naming the file. Any
// other exception, a crash, or an input taking longer than the per-input cap fails.
//
//   AOPT_FUZZ_ITERATIONS  inputs (default 10000; scripts/fuzz-spec.sh runs 100,000+)
//   AOPT_FUZZ_SEED        seed (default 1; printed)
//   AOPT_FUZZ_CAP_MS      per-input time cap in ms (default 2000); a watchdog aborts on a hang
//   AOPT_FUZZ_SAVE        write each input to this file before it runs (to catch a crash's input)
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/common/log.h"
#include "aopt/evaluation/package.h"
#include "aopt/evaluation/spec.h"

namespace fs = std::filesystem;
namespace ev = aopt::evaluation;
using rng_t = std::mt19937_64;

namespace {

std::uint64_t env_u64(const char* name, std::uint64_t def) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : def;
}

const std::vector<std::string> k_spec_seeds = {
    R"({"kernel": "add_custom", "seed": 7, "version": 1, "description": "d",
  "cases": [
    {"name": "perf", "timed": true,
     "inputs": {"x": {"shape": [8, 1024], "dtype": "float16", "range": [-1, 1]},
                "y": {"shape": [8, 1024], "dtype": "float16"}},
     "outputs": {"z": {"shape": [8, 1024], "dtype": "float16"}}, "attrs": {"alpha": 1.5}},
    {"name": "tail", "inputs": {"x": {"shape": [37, 1001], "dtype": "float32"},
                                "y": {"shape": [37, 1001], "dtype": "float32"}}}],
  "tolerance": {"float16": {"rtol": 1e-3, "atol": 1e-3}, "float32": {"rtol": 1e-6}, "max_mismatch_ratio": 0.001},
  "reference": "baseline"})",
    R"({"kernel": "concat_list", "cases": [{"name": "c", "timed": true,
  "inputs": {"xs": {"list": [{"shape": [4, 16], "dtype": "int32", "range": [0, 9]},
                             {"shape": [2], "dtype": "bfloat16"}]},
             "flag": {"shape": [], "dtype": "bool"}}}]})",
};

const std::vector<std::string> k_msopst_seeds = {
    R"([{"case_name": "Test_AddCustom_001", "op": "AddCustom",
  "input_desc": [
    {"name": "x", "format": ["ND"], "type": ["float16", "float"], "shape": [8, 2048],
     "data_distribute": ["uniform"], "value_range": [[0.1, 1.0]]},
    {"name": "y", "format": ["ND"], "type": ["float16", "float"], "shape": [[8, 2048], [4, 4]],
     "value_range": [-2.0, 2.0]}],
  "output_desc": [{"name": "z", "format": ["ND"], "type": ["float16", "float"], "shape": [8, 2048]}],
  "attr": [{"name": "alpha", "type": "float", "value": 2.0}]},
 {"case_name": "Test_AddCustom_002", "input_desc": [{"type": "int8", "shape": [3]}]}])",
};

// Tokens that stress the readers: structure, extreme numbers, strings a file name cannot hold.
const std::vector<std::string> k_tokens = {
    "{", "}", "[", "]", ",", ":", "\"", "null", "true", "false", "0", "-1", "-0", "1e400", "-1e400", "1e308",
    "4.9e-324", "18446744073709551616", "18446744073709551615", "9223372036854775807", "-9223372036854775808",
    "1099511627777", "65536", "0.5", "\"\\u0000\"", "\"\\ud800\"", "\"a/b\"", "\"..\"", "\" \"", "\"float16\"",
    "\"bool\"", "\"shape\"", "\"dtype\"", "\"list\"", "\"timed\"", "\"inputs\"", "\"range\"", "\"name\"",
    "\"case_name\"", "\"input_desc\"", "\"type\"", "\"value_range\"", "\"reference\"", "\"baseline\"",
    "\"x.cpp\"", "\xff", "\xc3", "\n", "\\", "/*", "[[1,2],[3]]", "{\"list\":[]}"};

// A random JSON value: scalars (extremes included), strings (long, path-like, control
// characters), and small arrays/objects of them, with known keys now and then.
nlohmann::json random_value(rng_t& rng, int depth) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  switch (pick(depth > 3 ? 6 : 9)) {
    case 0: return nullptr;
    case 1: return pick(2) == 0;
    case 2: {
      const std::int64_t ints[] = {0, 1, -1, 2, 7, 128, 129, 65536, std::int64_t(1) << 40, INT64_MAX, INT64_MIN};
      return ints[pick(std::size(ints))];
    }
    case 3: {
      const double ds[] = {0.0, -0.0, 0.5, -1.5, 1e-300, 1e300, 1.7976931348623157e308, 2.0, 1e-3};
      return ds[pick(std::size(ds))];
    }
    case 4: return std::uint64_t(18446744073709551615ull);
    case 5: {
      const char* strs[] = {"", "float16", "float", "fp16", "int64", "baseline", "ref.cpp", "x", "a/b", "c d",
                            "tab\there", "..", "perf", "ND"};
      std::string s = strs[pick(std::size(strs))];
      if (pick(4) == 0) s.append(pick(400), static_cast<char>('a' + pick(26)));
      return s;
    }
    case 6: {
      nlohmann::json a = nlohmann::json::array();
      for (std::size_t i = pick(5); i > 0; --i) a.push_back(random_value(rng, depth + 1));
      return a;
    }
    case 7: {
      const char* keys[] = {"shape", "dtype", "range", "list", "name", "timed", "inputs", "outputs", "type",
                            "case_name", "input_desc", "value", "rtol", "atol", "zz"};
      nlohmann::json o = nlohmann::json::object();
      for (std::size_t i = pick(4); i > 0; --i) o[keys[pick(std::size(keys))]] = random_value(rng, depth + 1);
      return o;
    }
    default: {
      nlohmann::json a = nlohmann::json::array();
      for (std::size_t i = 1 + pick(4); i > 0; --i) a.push_back(static_cast<std::int64_t>(rng() % 5) - 1);
      return a;
    }
  }
}

// Every value of `j` (pre-order), to pick one to change.
void collect(nlohmann::json& j, std::vector<nlohmann::json*>& out) {
  out.push_back(&j);
  if (j.is_structured()) {
    for (auto& v : j) collect(v, out);
  }
}

// One mutation of `text`, in place; `structural` keeps it JSON (mostly), so the validators
// behind the parser are reached.
void mutate(std::string& text, rng_t& rng, bool structural) {
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % std::max<std::size_t>(n, 1)); };
  const std::size_t at = pick(text.size() + 1);
  switch (structural ? 5 : pick(8)) {
    case 0:  // flip a byte
      if (!text.empty()) text[pick(text.size())] ^= static_cast<char>(1u << pick(8));
      break;
    case 1:  // delete a range
      text.erase(at, pick(32));
      break;
    case 2:  // duplicate a range
      text.insert(at, text.substr(pick(text.size() + 1), pick(64)));
      break;
    case 3:  // insert a token
      text.insert(at, k_tokens[pick(k_tokens.size())]);
      break;
    case 4:  // nest: wrap from here to the end in up to 300 lists (beyond the depth limit too)
    {
      const std::size_t n = 1 + pick(300);
      text.insert(at, std::string(n, '['));
      text.append(std::string(n, ']'));
      break;
    }
    default: {  // structural: replace, delete or add a value of the parsed document
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception&) {
        text.insert(at, k_tokens[pick(k_tokens.size())]);
        break;
      }
      std::vector<nlohmann::json*> nodes;
      collect(j, nodes);
      nlohmann::json* node = nodes[pick(nodes.size())];
      if (node->is_object() && !node->empty() && pick(3) == 0) {
        auto it = node->begin();
        std::advance(it, static_cast<long>(pick(node->size())));
        node->erase(it);
      } else if (node->is_object() && pick(2) == 0) {
        (*node)[k_tokens[pick(k_tokens.size())]] = random_value(rng, 0);
      } else {
        *node = random_value(rng, 0);
      }
      text = j.dump(pick(2) == 0 ? -1 : 1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
}

struct outcome {
  std::size_t parsed = 0, errors = 0;
  std::vector<std::string> failures;
};

// Runs one input through the reader; a failure is recorded with what went wrong.
void run_one(const std::string& text, bool msopst, const fs::path& file, outcome& out) {
  try {
    const ev::op_spec s = msopst ? ev::parse_msopst_cases(text, file, "add_custom") : ev::parse_op_spec(text, file);
    (void)s.to_json().dump();  // the candidate key
    if (msopst) {
      try {
        (void)ev::msopst_fuzz_requests(text, file);  // what load_package runs before parsing
      } catch (const aopt::error& e) {
        if (e.code() != aopt::ec::invalid_spec || std::string(e.what()).find(file.string()) == std::string::npos) {
          out.failures.push_back(std::string("msopst_fuzz_requests: ") + e.what());
        }
      }
    }
    try {
      ev::check_case_memory(s, std::uint64_t(8) << 30);
    } catch (const aopt::error& e) {
      if (e.code() != aopt::ec::invalid_spec) out.failures.push_back(std::string("check_case_memory: ") + e.what());
    }
    for (const auto& c : s.cases) {
      if (c.name.empty() || c.name.size() > ev::max_name_bytes) out.failures.push_back("accepted case name of " + std::to_string(c.name.size()) + " bytes");
      for (const auto& in : c.inputs) {
        for (const auto& t : in.tensors) {
          if (t.numel() > ev::max_tensor_elements) out.failures.push_back("accepted a tensor of " + std::to_string(t.numel()) + " elements");
        }
      }
    }
    ++out.parsed;
  } catch (const aopt::error& e) {
    const bool user = e.code() == aopt::ec::parse_error || e.code() == aopt::ec::invalid_spec;
    if (!user || std::string(e.what()).find(file.string()) == std::string::npos) {
      out.failures.push_back(std::string("aopt::error(") + aopt::to_string(e.code()) + ") without the file or of the wrong kind: " + e.what());
    }
    ++out.errors;
  } catch (const std::exception& e) {
    out.failures.push_back(std::string("exception that is not aopt::error: ") + typeid(e).name() + ": " + e.what());
  } catch (...) {
    out.failures.push_back("unknown exception");
  }
}

}  // namespace

TEST(FuzzSpec, ReadersEndInParsedSpecOrUserError) {
  const std::uint64_t seed = env_u64("AOPT_FUZZ_SEED", 1);
  const std::uint64_t iterations = env_u64("AOPT_FUZZ_ITERATIONS", 10000);
  const auto cap = std::chrono::milliseconds(env_u64("AOPT_FUZZ_CAP_MS", 2000));
  const char* save = std::getenv("AOPT_FUZZ_SAVE");
  std::printf("fuzz-spec: seed %llu, %llu inputs, per-input cap %lld ms (rerun: AOPT_FUZZ_SEED=%llu)\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(iterations),
              static_cast<long long>(cap.count()), static_cast<unsigned long long>(seed));
  std::fflush(stdout);
  aopt::common::set_log_level("off");  // load_package's warnings about unknown keys

  // A package on disk for load_package (add_custom's sources, the fuzzed aopt.json).
  const fs::path root = aopt::common::make_unique_dir(fs::temp_directory_path(), "aopt-fuzz-");
  const fs::path pkg = root / "add_custom";
  fs::copy(fs::path(AOPT_TEST_SOURCE_DIR) / "examples/ops/add_custom", pkg, fs::copy_options::recursive);

  // Watchdog: a hang (an input running past 10x the cap) aborts with the iteration to rerun.
  std::atomic<std::int64_t> started_ns{0};
  std::atomic<std::uint64_t> current{0};
  std::atomic<bool> done{false};
  std::jthread watchdog([&](const std::stop_token& stop) {
    while (!done && !stop.stop_requested()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      const std::int64_t s = started_ns.load();
      const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
      if (s != 0 && std::chrono::nanoseconds(now - s) > cap * 10) {
        std::fprintf(stderr, "fuzz-spec: input %llu (seed %llu) hangs; rerun with AOPT_FUZZ_SAVE=FILE to get it\n",
                     static_cast<unsigned long long>(current.load()), static_cast<unsigned long long>(seed));
        std::abort();
      }
    }
  });

  outcome out;
  std::chrono::nanoseconds slowest{0};
  std::uint64_t slowest_at = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < iterations && out.failures.size() < 5; ++i) {
    rng_t rng(seed * 0x9E3779B97F4A7C15ull + i);
    const bool msopst = rng() % 3 == 0;
    const auto& seeds = msopst ? k_msopst_seeds : k_spec_seeds;
    std::string text = seeds[rng() % seeds.size()];
    const bool structural = rng() % 2 == 0;
    for (std::size_t m = 1 + rng() % 6; m > 0; --m) mutate(text, rng, structural);
    const bool on_disk = !msopst && i % 50 == 0;
    if (save != nullptr) aopt::common::write_text_file(save, text);

    current = i;
    const auto start = std::chrono::steady_clock::now();
    started_ns = start.time_since_epoch().count();
    const std::size_t before = out.failures.size();
    if (on_disk) {
      aopt::common::write_text_file(pkg / "aopt.json", text);
      try {
        (void)ev::load_package(pkg);
        ++out.parsed;
      } catch (const aopt::error& e) {
        if (e.code() != aopt::ec::parse_error && e.code() != aopt::ec::invalid_spec && e.code() != aopt::ec::not_found) {
          out.failures.push_back(std::string("load_package: aopt::error(") + aopt::to_string(e.code()) + "): " + e.what());
        }
        ++out.errors;
      } catch (const std::exception& e) {
        out.failures.push_back(std::string("load_package: not an aopt::error: ") + e.what());
      }
    } else {
      run_one(text, msopst, msopst ? "fuzz/st/case.json" : "fuzz/aopt.json", out);
    }
    const auto took = std::chrono::steady_clock::now() - start;
    started_ns = 0;
    if (took > slowest) {
      slowest = took;
      slowest_at = i;
    }
    if (took > cap) out.failures.push_back("took " + std::to_string(took.count() / 1000000) + " ms (cap " + std::to_string(cap.count()) + " ms)");
    if (out.failures.size() > before) {
      out.failures.back() = "input " + std::to_string(i) + ": " + out.failures.back() + "\n  input (first 600 bytes): " + text.substr(0, 600);
    }
  }
  done = true;
  std::error_code ec;
  fs::remove_all(root, ec);

  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("fuzz-spec: %llu inputs in %.2f s (%.0f/s): %zu parsed, %zu user errors; slowest input %llu: %.2f ms\n",
              static_cast<unsigned long long>(iterations), seconds, static_cast<double>(iterations) / seconds, out.parsed,
              out.errors, static_cast<unsigned long long>(slowest_at),
              std::chrono::duration<double, std::milli>(slowest).count());
  for (const auto& f : out.failures) ADD_FAILURE() << "seed " << seed << ", " << f;
  // The mutations must reach both outcomes, or the fuzzer tests nothing.
  if (iterations >= 1000) {
    EXPECT_GT(out.parsed, iterations / 50);
    EXPECT_GT(out.errors, iterations / 50);
  }
}
