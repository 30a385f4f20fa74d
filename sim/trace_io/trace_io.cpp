// aopt_sim/trace_io.h: one launch's per-core traces, field by field.
#include "aopt_sim/trace_io.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>

namespace aopt::sim {

namespace {

constexpr char magic[8] = {'A', 'O', 'P', 'T', 'T', 'R', 'C', '1'};

class writer {
 public:
  explicit writer(std::ofstream& o) : o_(o) {}
  template <typename T>
  void num(T v) {
    const auto u = static_cast<std::uint64_t>(v);
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(u >> (8 * i));
    o_.write(reinterpret_cast<const char*>(b), 8);
  }
  void str(const std::string& s) {
    num(s.size());
    o_.write(s.data(), static_cast<std::streamsize>(s.size()));
  }

 private:
  std::ofstream& o_;
};

class reader {
 public:
  reader(std::ifstream& in, const std::filesystem::path& file) : in_(in), file_(file) {}
  std::uint64_t num() {
    unsigned char b[8];
    if (!in_.read(reinterpret_cast<char*>(b), 8)) fail("truncated");
    std::uint64_t u = 0;
    for (int i = 0; i < 8; ++i) u |= static_cast<std::uint64_t>(b[i]) << (8 * i);
    return u;
  }
  template <typename T>
  T as() {
    return static_cast<T>(num());
  }
  std::string str() {
    const auto n = num();
    if (n > (1u << 20)) fail("a string of " + std::to_string(n) + " bytes");
    std::string s(n, '\0');
    if (n > 0 && !in_.read(s.data(), static_cast<std::streamsize>(n))) fail("truncated");
    return s;
  }
  std::size_t count(std::uint64_t limit, const char* what) {
    const auto n = num();
    if (n > limit) fail(std::string("implausible ") + what + " count " + std::to_string(n));
    return static_cast<std::size_t>(n);
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error(file_.string() + ": not a trace file of this aopt (" + why + "); write it again");
  }

 private:
  std::ifstream& in_;
  const std::filesystem::path& file_;
};

void put_rec(writer& w, const trace_rec& r) {
  w.num(r.kind);
  w.num(r.p);
  w.num(r.src);
  w.num(r.dst);
  w.num(r.dtype_bytes);
  w.num(r.vclass);
  w.num(r.atomic);
  w.num(r.event);
  w.num(r.site);
  w.num(r.repeats);
  w.num(r.bank_cycles);
  w.num(r.blocks);
  w.num(r.block_bytes);
  w.num(r.gm_addr);
  w.num(r.ub_addr);
  w.num(r.cycles);
  w.num(r.gm_buf);
  w.num(r.l2_bypass);
}

trace_rec get_rec(reader& rd) {
  trace_rec r;
  r.kind = rd.as<rec_kind>();
  r.p = rd.as<pipe>();
  r.src = rd.as<pipe>();
  r.dst = rd.as<pipe>();
  r.dtype_bytes = rd.as<std::uint8_t>();
  r.vclass = rd.as<vec_class>();
  r.atomic = rd.num() != 0;
  r.event = rd.as<std::uint16_t>();
  r.site = rd.as<std::uint32_t>();
  r.repeats = rd.as<std::uint32_t>();
  r.bank_cycles = rd.as<std::uint16_t>();
  r.blocks = rd.as<std::uint32_t>();
  r.block_bytes = rd.as<std::uint32_t>();
  r.gm_addr = rd.num();
  r.ub_addr = rd.as<std::uint32_t>();
  r.cycles = rd.num();
  r.gm_buf = rd.as<std::uint16_t>();
  r.l2_bypass = rd.num() != 0;
  if (r.vclass >= vec_class::count_ || r.p > pipe::fix || r.src > pipe::fix || r.dst > pipe::fix || r.kind > rec_kind::cross_wait) rd.fail("a record out of range");
  return r;
}

}  // namespace

void save_traces(const std::filesystem::path& file, const std::vector<core_trace>& traces) {
  std::ofstream o(file, std::ios::binary | std::ios::trunc);
  if (!o) throw std::runtime_error("cannot write the trace file " + file.string());
  o.write(magic, sizeof magic);
  writer w(o);
  w.num(traces.size());
  for (const auto& t : traces) {
    w.num(t.block_idx);
    w.num(t.ub_peak_bytes);
    w.num(t.sites.size());
    for (const auto& s : t.sites) {
      w.str(s.file);
      w.num(s.line);
      w.str(s.function);
      w.str(s.api);
    }
    w.num(t.recs.size());
    for (const auto& r : t.recs) put_rec(w, r);
  }
  if (!o.flush()) throw std::runtime_error("cannot write the trace file " + file.string());
}

std::vector<core_trace> load_traces(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the trace file " + file.string());
  reader rd(in, file);
  char m[sizeof magic];
  if (!in.read(m, sizeof m) || std::memcmp(m, magic, sizeof magic) != 0) rd.fail("bad magic");
  std::vector<core_trace> traces(rd.count(1u << 16, "core"));
  for (auto& t : traces) {
    t.block_idx = rd.as<std::uint32_t>();
    t.ub_peak_bytes = rd.as<std::uint32_t>();
    t.sites.resize(rd.count(1u << 24, "call site"));
    for (auto& s : t.sites) {
      s.file = rd.str();
      s.line = rd.as<std::uint32_t>();
      s.function = rd.str();
      s.api = rd.str();
    }
    const auto n = rd.count(std::uint64_t(1) << 32, "record");
    t.recs.reserve(n);
    for (std::size_t i = 0; i < n; ++i) t.recs.push_back(get_rec(rd));
  }
  return traces;
}

}  // namespace aopt::sim
