#include "aopt/common/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>

#include "aopt/common/error.h"

namespace aopt::common {

namespace {

std::string errno_text(int e) { return std::strerror(e); }

}  // namespace

mapped_file::mapped_file(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    throw error(e == ENOENT ? ec::not_found : ec::io_error, file.string() + ": cannot open (" + errno_text(e) + ")");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int e = errno;
    ::close(fd);
    throw error(ec::io_error, file.string() + ": cannot stat (" + errno_text(e) + ")");
  }
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ > 0) {
    void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
      const int e = errno;
      ::close(fd);
      throw error(ec::io_error, file.string() + ": cannot map " + std::to_string(size_) + " bytes (" + errno_text(e) +
                                    "); is the evaluator's address-space limit too low?");
    }
    map_ = p;
    data_ = static_cast<const std::uint8_t*>(p);
  }
  ::close(fd);
}

mapped_file::~mapped_file() {
  if (map_ != nullptr) ::munmap(map_, size_);
}

mapped_file::mapped_file(mapped_file&& o) noexcept : data_(o.data_), size_(o.size_), map_(o.map_) {
  o.data_ = nullptr;
  o.size_ = 0;
  o.map_ = nullptr;
}

void write_file_bytes(const std::filesystem::path& file, const void* data, std::size_t size) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw error(ec::io_error, file.string() + ": cannot create (" + errno_text(errno) + ")");
  }
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::size_t left = size;
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw error(ec::io_error, file.string() + ": cannot write (" + errno_text(e) + "; disk full?)");
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) throw error(ec::io_error, file.string() + ": cannot close (" + errno_text(errno) + ")");
}

void write_file_bytes_atomic(const std::filesystem::path& file, const void* data, std::size_t size) {
  static std::atomic<std::uint64_t> counter{0};
  std::filesystem::path tmp = file;
  tmp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  try {
    write_file_bytes(tmp, data, size);
  } catch (...) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    throw;
  }
  std::error_code e;
  std::filesystem::rename(tmp, file, e);
  if (e) {
    std::filesystem::remove(tmp, e);
    throw error(ec::io_error, file.string() + ": cannot rename the finished file into place (" + e.message() + ")");
  }
}

}  // namespace aopt::common
