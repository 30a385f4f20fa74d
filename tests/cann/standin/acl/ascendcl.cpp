// libascendcl.so of the stand-in CANN runtime (standin_acl.h): the runtime calls of acl_abi.h
// with the real runtime's rules and codes, so a runner that breaks a rule fails here as it would
// on a device. "Device" memory is host memory, tracked: a host pointer where device memory is
// due (or the reverse) is an error, as the real aclrtMemcpy reports it.
//
// Time: the host has a simulated clock (µs) that each kernel launch's enqueue advances by
// AOPT_STANDIN_LAUNCH_US (default 8: the host side of an aclnn launch, tiling copy and submit)
// and each GetWorkspaceSize by AOPT_STANDIN_TILING_US (default 20); each stream has a clock that
// its tasks advance. A kernel starts at the later of its stream's clock and its enqueue; an event
// is stamped at the later of the stream's clock and the host's (an event on an idle stream is
// stamped when the host records it); aclrtSynchronizeStream brings the host's clock up to the
// stream's. So an event pair around one launch on an idle stream measures the launch overhead
// plus the kernel, as on a device.
//
// Environment: AOPT_STANDIN_DEVICES (device count, default 1), AOPT_STANDIN_DEVICE_MEMORY
// (bytes, default 32 GiB), AOPT_STANDIN_FAULT=device_busy (aclrtSetDevice fails with 507033),
// AOPT_STANDIN_LAUNCH_US, AOPT_STANDIN_TILING_US.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "standin_acl.h"

namespace {

// The codes of acl/error_codes/rt_error_codes.h this runtime returns.
constexpr aclError rt_param_invalid = 107000, rt_invalid_device = 107001, rt_context_null = 107002,
                   rt_memory_allocation = 207001, rt_dev_setup = 507033, repeat_finalize = 100037;

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::string(v) : fallback;
}

double env_us(const char* name, double fallback) {
  const std::string v = env_or(name, "");
  return v.empty() ? fallback : std::max(0.0, std::strtod(v.c_str(), nullptr));
}

thread_local std::string recent_error, returned_error;

aclError fail(aclError code, const std::string& text) {
  aopt_standin_error(text.c_str());
  return code;
}

struct stream {
  double clock_us = 0;
  aclError error = ACL_SUCCESS;
  std::string error_text;
  bool hung = false;
};
struct event {
  bool recorded = false;
  double at_us = 0;
};

// One process's runtime. The mutex guards everything: a runner is single-threaded, but the
// real runtime is thread-safe and so is this.
struct runtime {
  std::mutex m;
  bool initialized = false;
  std::map<const char*, std::size_t, std::greater<>> allocations;  // start -> bytes, descending
  std::size_t allocated = 0;
  std::set<stream*> streams;
  std::set<event*> events;
  std::map<int32_t, stream*> default_streams;
  double host_us = 0;  // the host's simulated clock
};
runtime& rt() {
  static runtime r;
  return r;
}
thread_local int32_t current_device = -1;  // the real context is per thread, too

// Whether one allocation holds [p, p + bytes).
bool inside_allocation(runtime& r, const void* p, std::size_t bytes) {
  const auto* c = static_cast<const char*>(p);
  const auto it = r.allocations.lower_bound(c);  // the greatest start <= c
  return it != r.allocations.end() && c + bytes <= it->first + it->second && c >= it->first;
}

// Stream and event calls need aclInit and a device (the real runtime: 107002, context is null).
aclError need_context(runtime& r, const char* call) {
  if (!r.initialized) return fail(ACL_ERROR_UNINITIALIZE, std::string("EH0001: ") + call + ": acl is not initialized (call aclInit first)");
  if (current_device < 0) {
    return fail(rt_context_null, std::string("EE1001: ") + call + ": the context is null: no aclrtSetDevice on this thread");
  }
  return ACL_SUCCESS;
}

stream* find_stream(runtime& r, aclrtStream s) {
  if (!s) {
    auto& d = r.default_streams[current_device];
    if (!d) d = new stream;
    return d;
  }
  auto* p = static_cast<stream*>(s);
  return r.streams.count(p) ? p : nullptr;
}

}  // namespace

extern "C" {

void aopt_standin_error(const char* text) {
  recent_error += text;
  if (recent_error.empty() || recent_error.back() != '\n') recent_error += '\n';
}

aclError aopt_standin_stream_launch(aclrtStream s, double us, int fail_code, const char* fail_text, bool hang) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError e = need_context(r, "kernel launch")) return e;
  stream* st = find_stream(r, s);
  if (!st) return fail(rt_param_invalid, "EE1001: kernel launch: the stream is not one of aclrtCreateStream");
  if (hang) st->hung = true;
  if (fail_code != ACL_SUCCESS && st->error == ACL_SUCCESS) {
    st->error = fail_code;
    st->error_text = fail_text ? fail_text : "";
  }
  r.host_us += env_us("AOPT_STANDIN_LAUNCH_US", 8.0);
  if (st->error == ACL_SUCCESS) st->clock_us = std::max(st->clock_us, r.host_us) + us;
  return ACL_SUCCESS;
}

void aopt_standin_host_work(double us) {
  auto& r = rt();
  std::lock_guard g(r.m);
  r.host_us += us;
}

bool aopt_standin_is_device_memory(const void* p, uint64_t bytes) {
  auto& r = rt();
  std::lock_guard g(r.m);
  return inside_allocation(r, p, bytes);
}

int32_t aopt_standin_current_device() { return current_device; }

aclError aclInit(const char*) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (r.initialized) return fail(ACL_ERROR_REPEAT_INITIALIZE, "EH0002: aclInit: repeated initialization");
  r.initialized = true;
  return ACL_SUCCESS;
}

aclError aclFinalize() {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (!r.initialized) return fail(repeat_finalize, "EH0002: aclFinalize: acl is not initialized or already finalized");
  r.initialized = false;
  current_device = -1;
  return ACL_SUCCESS;
}

aclError aclrtSetDevice(int32_t id) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (!r.initialized) return fail(ACL_ERROR_UNINITIALIZE, "EH0001: aclrtSetDevice: acl is not initialized (call aclInit first)");
  const long count = std::strtol(env_or("AOPT_STANDIN_DEVICES", "1").c_str(), nullptr, 10);
  if (id < 0 || id >= count) {
    return fail(rt_invalid_device, "EE1001: The argument is invalid. Reason: aclrtSetDevice: invalid device id " + std::to_string(id) +
                                       ", the valid range is [0, " + std::to_string(count) + ")");
  }
  if (env_or("AOPT_STANDIN_FAULT", "") == "device_busy") {
    return fail(rt_dev_setup, "EL0003: aclrtSetDevice(" + std::to_string(id) +
                                  "): device setup error, the device is in use by another process (AOPT_STANDIN_FAULT=device_busy)");
  }
  current_device = id;
  return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t id) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (!r.initialized) return fail(ACL_ERROR_UNINITIALIZE, "EH0001: aclrtResetDevice: acl is not initialized");
  if (id != current_device) return fail(rt_invalid_device, "EE1001: aclrtResetDevice: device " + std::to_string(id) + " was not set on this thread");
  current_device = -1;
  return ACL_SUCCESS;
}

extern "C++" {
// aclrtCreateStream/Event and aclrtDestroyStream/Event: a handle of the current context, kept
// in `handles` so that destroying something else is an error.
template <class T>
aclError create_handle(std::set<T*> runtime::*handles, void** out, const char* call, const char* what) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError e = need_context(r, call)) return e;
  if (!out) return fail(ACL_ERROR_INVALID_PARAM, std::string("EH0001: ") + call + ": " + what + " is nullptr");
  auto* h = new T;
  (r.*handles).insert(h);
  *out = h;
  return ACL_SUCCESS;
}

template <class T>
aclError destroy_handle(std::set<T*> runtime::*handles, void* h, const char* call, const char* made_by) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError e = need_context(r, call)) return e;
  if (!(r.*handles).erase(static_cast<T*>(h))) return fail(rt_param_invalid, std::string("EE1001: ") + call + ": not made by " + made_by);
  delete static_cast<T*>(h);
  return ACL_SUCCESS;
}
}  // extern "C++"

aclError aclrtCreateStream(aclrtStream* s) { return create_handle(&runtime::streams, s, "aclrtCreateStream", "stream"); }

aclError aclrtDestroyStream(aclrtStream s) { return destroy_handle(&runtime::streams, s, "aclrtDestroyStream", "aclrtCreateStream"); }

aclError aclrtSynchronizeStream(aclrtStream s) {
  auto& r = rt();
  std::unique_lock g(r.m);
  if (const aclError e = need_context(r, "aclrtSynchronizeStream")) return e;
  stream* st = find_stream(r, s);
  if (!st) return fail(rt_param_invalid, "EE1001: aclrtSynchronizeStream: not a stream of aclrtCreateStream");
  if (st->hung) {
    // A kernel that never ends: the real call waits (up to the stream's sync timeout, far beyond
    // any [timeouts] run); the backend's timeout kills the process group first.
    g.unlock();
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
  r.host_us = std::max(r.host_us, st->clock_us);
  // The error stays on the stream, as a real aicore exception leaves the context unusable.
  if (st->error != ACL_SUCCESS) return fail(st->error, st->error_text);
  return ACL_SUCCESS;
}

aclError aclrtMalloc(void** p, size_t size, aclrtMemMallocPolicy) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError e = need_context(r, "aclrtMalloc")) return e;
  if (!p || size == 0) return fail(ACL_ERROR_INVALID_PARAM, "EH0001: aclrtMalloc: devPtr is nullptr or size is 0");
  const std::size_t limit = std::strtoull(env_or("AOPT_STANDIN_DEVICE_MEMORY", std::to_string(std::size_t{32} << 30)).c_str(), nullptr, 10);
  if (size > limit - std::min(limit, r.allocated)) {
    return fail(rt_memory_allocation, "EE2001: aclrtMalloc: out of device memory: " + std::to_string(size) + " bytes asked, " +
                                          std::to_string(r.allocated) + " of " + std::to_string(limit) + " in use");
  }
  // Device allocations are aligned (the real ones to 2 MiB pages; 512 bytes is what kernels rely on).
  const std::size_t rounded = (size + 511) / 512 * 512;
  void* mem = std::aligned_alloc(512, rounded);
  if (!mem) return fail(rt_memory_allocation, "EE2001: aclrtMalloc: host memory behind the stand-in device is exhausted");
  r.allocations[static_cast<const char*>(mem)] = size;
  r.allocated += size;
  *p = mem;
  return ACL_SUCCESS;
}

aclError aclrtFree(void* p) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError e = need_context(r, "aclrtFree")) return e;
  const auto it = r.allocations.find(static_cast<const char*>(p));
  if (it == r.allocations.end()) return fail(rt_param_invalid, "EE1001: aclrtFree: the address is not one of aclrtMalloc");
  r.allocated -= it->second;
  r.allocations.erase(it);
  std::free(p);
  return ACL_SUCCESS;
}

aclError aclrtMemcpy(void* dst, size_t dest_max, const void* src, size_t count, aclrtMemcpyKind kind) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError e = need_context(r, "aclrtMemcpy")) return e;
  if (!dst || !src) return fail(ACL_ERROR_INVALID_PARAM, "EH0001: aclrtMemcpy: dst or src is nullptr");
  if (count > dest_max) {
    return fail(ACL_ERROR_INVALID_PARAM, "EH0001: aclrtMemcpy: count " + std::to_string(count) + " exceeds destMax " + std::to_string(dest_max));
  }
  if (kind < ACL_MEMCPY_HOST_TO_HOST || kind > ACL_MEMCPY_DEVICE_TO_DEVICE) {
    return fail(ACL_ERROR_INVALID_PARAM, "EH0001: aclrtMemcpy: unknown kind " + std::to_string(static_cast<int>(kind)));
  }
  const bool dst_device = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  const bool src_device = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE;
  auto check = [&](const void* p, std::size_t n, bool device, const char* which) -> std::string {
    const bool in = inside_allocation(r, p, n);
    if (device && !in) return std::string(which) + " is not device memory of aclrtMalloc (or the range overruns its allocation)";
    if (!device && in) return std::string(which) + " is device memory, but the kind says host";
    return "";
  };
  std::string why = check(dst, count, dst_device, "dst");
  if (why.empty()) why = check(src, count, src_device, "src");
  if (!why.empty()) {
    return fail(ACL_ERROR_INVALID_PARAM, "EH0001: aclrtMemcpy(kind " + std::to_string(static_cast<int>(kind)) + ", " +
                                             std::to_string(count) + " bytes): " + why);
  }
  if (count) std::memmove(dst, src, count);
  return ACL_SUCCESS;
}

aclError aclrtCreateEvent(aclrtEvent* e) { return create_handle(&runtime::events, e, "aclrtCreateEvent", "event"); }

aclError aclrtDestroyEvent(aclrtEvent e) { return destroy_handle(&runtime::events, e, "aclrtDestroyEvent", "aclrtCreateEvent"); }

aclError aclrtRecordEvent(aclrtEvent e, aclrtStream s) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError c = need_context(r, "aclrtRecordEvent")) return c;
  auto* ev = static_cast<event*>(e);
  stream* st = find_stream(r, s);
  if (!r.events.count(ev) || !st) return fail(rt_param_invalid, "EE1001: aclrtRecordEvent: unknown event or stream");
  ev->recorded = true;
  st->clock_us = std::max(st->clock_us, r.host_us);
  ev->at_us = st->clock_us;
  return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent e) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError c = need_context(r, "aclrtSynchronizeEvent")) return c;
  if (!r.events.count(static_cast<event*>(e))) return fail(rt_param_invalid, "EE1001: aclrtSynchronizeEvent: not an event of aclrtCreateEvent");
  return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float* ms, aclrtEvent start, aclrtEvent end) {
  auto& r = rt();
  std::lock_guard g(r.m);
  if (const aclError c = need_context(r, "aclrtEventElapsedTime")) return c;
  auto* a = static_cast<event*>(start);
  auto* b = static_cast<event*>(end);
  if (!ms || !r.events.count(a) || !r.events.count(b)) {
    return fail(rt_param_invalid, "EE1001: aclrtEventElapsedTime: ms is nullptr or an event is not one of aclrtCreateEvent");
  }
  if (!a->recorded || !b->recorded) {
    return fail(rt_param_invalid, std::string("EE1001: aclrtEventElapsedTime: the ") + (a->recorded ? "end" : "start") +
                                      " event was never recorded (aclrtRecordEvent)");
  }
  *ms = static_cast<float>((b->at_us - a->at_us) / 1000.0);
  return ACL_SUCCESS;
}

const char* aclGetRecentErrMsg() {
  // Returned once, then cleared, as the real one; nullptr when there is nothing to say.
  returned_error = std::move(recent_error);
  recent_error.clear();
  return returned_error.empty() ? nullptr : returned_error.c_str();
}

}  // extern "C"
