// Header name of the bounds-checked C library CANN host code uses (securec): the functions
// operators call, with their contract: a destination smaller than the data is an error (nonzero
// return; memset_s/memcpy_s then clear the destination), EOK (0) otherwise.
#pragma once

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <cstring>

#ifndef EOK
#define EOK 0
#endif
typedef int errno_t;

inline errno_t memset_s(void* dest, std::size_t destMax, int c, std::size_t count) {
  if (dest == nullptr) return 22;
  if (count > destMax) {
    std::memset(dest, c, destMax);
    return 34;
  }
  std::memset(dest, c, count);
  return EOK;
}
inline errno_t memcpy_s(void* dest, std::size_t destMax, const void* src, std::size_t count) {
  if (dest == nullptr || src == nullptr) return 22;
  if (count > destMax) {
    std::memset(dest, 0, destMax);
    return 34;
  }
  std::memmove(dest, src, count);
  return EOK;
}
inline errno_t memmove_s(void* dest, std::size_t destMax, const void* src, std::size_t count) {
  return memcpy_s(dest, destMax, src, count);
}
inline errno_t strcpy_s(char* dest, std::size_t destMax, const char* src) {
  if (dest == nullptr || src == nullptr || destMax == 0) return 22;
  const std::size_t n = std::strlen(src);
  if (n >= destMax) {
    dest[0] = '\0';
    return 34;
  }
  std::memcpy(dest, src, n + 1);
  return EOK;
}
inline errno_t strncpy_s(char* dest, std::size_t destMax, const char* src, std::size_t count) {
  if (dest == nullptr || src == nullptr || destMax == 0) return 22;
  std::size_t n = std::strlen(src);
  if (n > count) n = count;
  if (n >= destMax) {
    dest[0] = '\0';
    return 34;
  }
  std::memcpy(dest, src, n);
  dest[n] = '\0';
  return EOK;
}
inline errno_t strcat_s(char* dest, std::size_t destMax, const char* src) {
  if (dest == nullptr || src == nullptr) return 22;
  const std::size_t have = strnlen(dest, destMax);
  if (have == destMax) return 22;
  return strcpy_s(dest + have, destMax - have, src);
}
// The number of characters written, or -1 when they do not fit (the destination is then empty).
inline int vsnprintf_s(char* dest, std::size_t destMax, std::size_t count, const char* fmt, va_list ap) {
  if (dest == nullptr || destMax == 0) return -1;
  const std::size_t cap = count < destMax ? count + 1 : destMax;
  const int n = std::vsnprintf(dest, cap, fmt, ap);
  if (n < 0 || static_cast<std::size_t>(n) >= cap) {
    if (count < destMax && n >= 0) return static_cast<int>(count);  // truncated by request
    dest[0] = '\0';
    return -1;
  }
  return n;
}
inline int snprintf_s(char* dest, std::size_t destMax, std::size_t count, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf_s(dest, destMax, count, fmt, ap);
  va_end(ap);
  return n;
}
inline int sprintf_s(char* dest, std::size_t destMax, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int n = vsnprintf_s(dest, destMax, destMax - 1, fmt, ap);
  va_end(ap);
  return n;
}
