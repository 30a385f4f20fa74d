#include "http.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "aopt/common/error.h"
#include "aopt/common/log.h"
#include "aopt/common/ownership.h"

namespace aopt::daemon {

namespace fs = std::filesystem;
using clock_type = std::chrono::steady_clock;

const char* status_text(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

http_response error_response(int status, const std::string& code, const std::string& message,
                             const std::string& field) {
  http_response r;
  r.status = status;
  nlohmann::json e = {{"code", code}, {"message", message}};
  e["field"] = field.empty() ? nlohmann::json() : nlohmann::json(field);
  // A message may quote what the client sent: a malformed UTF-8 byte shows as U+FFFD instead of
  // failing the answer (nlohmann's type_error 316).
  r.body = nlohmann::json{{"error", e}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return r;
}

namespace {

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string head_of(const http_response& r, bool streamed) {
  std::string h = "HTTP/1.1 " + std::to_string(r.status) + " " + status_text(r.status) + "\r\n";
  h += "Content-Type: " + r.content_type + "\r\n";
  if (!streamed) h += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
  h += "Connection: close\r\n\r\n";
  return h;
}

void send_response(int fd, const http_response& r) {
  if (r.stream) {
    if (!send_all(fd, head_of(r, true))) return;
    r.stream([fd](std::string_view chunk) { return send_all(fd, chunk); });
  } else {
    (void)send_all(fd, head_of(r, false) + r.body);
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding; false for a malformed escape.
bool decode(std::string_view in, std::string& out, bool plus_is_space) {
  out.clear();
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '%') {
      if (i + 2 >= in.size()) return false;
      const int a = hex_value(in[i + 1]), b = hex_value(in[i + 2]);
      if (a < 0 || b < 0) return false;
      out.push_back(static_cast<char>(a * 16 + b));
      i += 2;
    } else if (plus_is_space && in[i] == '+') {
      out.push_back(' ');
    } else {
      out.push_back(in[i]);
    }
  }
  return out.find('\0') == std::string::npos;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

// Reads into `buf` until it holds `want` bytes or "\r\n\r\n" (want == 0); false on timeout
// (`timed_out` set), close or error.
bool read_more(int fd, std::string& buf, clock_type::time_point deadline, bool& timed_out) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock_type::now()).count();
  if (left <= 0) {
    timed_out = true;
    return false;
  }
  pollfd p{fd, POLLIN, 0};
  const int r = ::poll(&p, 1, static_cast<int>(left));
  if (r == 0) {
    timed_out = true;
    return false;
  }
  if (r < 0) return errno == EINTR;
  char tmp[16384];
  const ssize_t n = ::recv(fd, tmp, sizeof tmp, 0);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  buf.append(tmp, static_cast<std::size_t>(n));
  return true;
}

// Parses the request head; an error response when it is malformed.
std::optional<http_response> parse_head(std::string_view head, http_request& req) {
  const auto eol = head.find("\r\n");
  const std::string_view line = head.substr(0, eol);
  const auto sp1 = line.find(' ');
  const auto sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return error_response(400, "bad_request", "malformed request line (expected 'METHOD /path HTTP/1.1')");
  }
  req.method = std::string(line.substr(0, sp1));
  req.target = std::string(line.substr(sp1 + 1, sp2 - sp1 - 1));
  const std::string_view version = line.substr(sp2 + 1);
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return error_response(505, "http_version", "only HTTP/1.1 (and 1.0) are spoken here");
  }
  for (char c : req.method) {
    if (c < 'A' || c > 'Z') return error_response(400, "bad_request", "malformed method");
  }
  if (req.target.empty() || req.target.front() != '/') {
    return error_response(400, "bad_request", "the request target must be an absolute path (/v1/...)");
  }
  const auto q = req.target.find('?');
  if (!decode(std::string_view(req.target).substr(0, q), req.path, false)) {
    return error_response(400, "bad_request", "malformed percent-encoding in the path");
  }
  if (q != std::string::npos) {
    std::string_view rest = std::string_view(req.target).substr(q + 1);
    while (!rest.empty()) {
      const auto amp = rest.find('&');
      const auto part = rest.substr(0, amp);
      const auto eq = part.find('=');
      std::string k, v;
      if (!decode(part.substr(0, eq), k, true) ||
          !decode(eq == std::string_view::npos ? std::string_view() : part.substr(eq + 1), v, true)) {
        return error_response(400, "bad_request", "malformed percent-encoding in the query");
      }
      if (!k.empty()) req.query[k] = v;
      if (amp == std::string_view::npos) break;
      rest.remove_prefix(amp + 1);
    }
  }
  std::size_t pos = eol == std::string_view::npos ? head.size() : eol + 2;
  while (pos < head.size()) {
    auto next = head.find("\r\n", pos);
    if (next == std::string_view::npos) next = head.size();
    const auto h = head.substr(pos, next - pos);
    pos = next + 2;
    if (h.empty()) break;
    const auto colon = h.find(':');
    if (colon == std::string_view::npos || colon == 0 || h.front() == ' ' || h.front() == '\t') {
      return error_response(400, "bad_request", "malformed header line");
    }
    req.headers[lower(std::string(h.substr(0, colon)))] = trim(h.substr(colon + 1));
  }
  return std::nullopt;
}

}  // namespace

namespace {

// The id of group `name`; aopt::error(invalid_argument) naming the config key when unknown.
gid_t group_id(const std::string& name) {
  std::vector<char> buf(16384);
  group g{};
  group* found = nullptr;
  if (::getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &found) != 0 || found == nullptr) {
    throw error(ec::invalid_argument, "[daemon] socket_group '" + name + "': no such group; create it (groupadd " +
                                          name + ") and add the users who submit jobs, or leave socket_group empty");
  }
  return found->gr_gid;
}

// Gives `path` to group `gid` with `mode`; aopt::error(io_error) saying what failed.
void share_with_group(const fs::path& path, gid_t gid, mode_t mode) {
  if (::chown(path.c_str(), static_cast<uid_t>(-1), gid) != 0 || ::chmod(path.c_str(), mode) != 0) {
    throw error(ec::io_error, path.string() + ": cannot give it to the socket group: " + std::strerror(errno));
  }
}

}  // namespace

http_server::http_server(fs::path socket, http_limits limits, handler h, const std::string& group)
    : socket_(std::move(socket)), limits_(limits), handler_(std::move(h)) {
  const bool shared = !group.empty();
  const gid_t gid = shared ? group_id(group) : 0;
  const auto dir = socket_.parent_path().empty() ? fs::path(".") : socket_.parent_path();
  std::error_code e;
  // The directory is ours, or aoptd does not start: whoever may write to it could move the socket
  // aside and answer in aoptd's place. Created here (mkdir, then checked: no race with another
  // user creating it first); the group needs only to enter it (x) to connect.
  fs::create_directories(fs::absolute(dir).parent_path(), e);
  if (::mkdir(dir.c_str(), shared ? 0710 : 0700) == 0) {
    if (shared) share_with_group(dir, gid, 0710);
  } else if (errno != EEXIST) {
    throw error(ec::io_error, dir.string() + ": cannot create the socket directory: " + std::strerror(errno));
  }
  if (const auto why = common::untrusted_dir(dir, {::geteuid()}); !why.empty()) {
    throw error(ec::io_error, "refusing to listen: the socket directory " + why +
                                  ". Another user could replace the socket and answer in aoptd's place. Remove the "
                                  "directory (rm -r " + dir.string() + ") to let aoptd create it, or give --socket a "
                                  "path in a directory of your own that only you may write to (docs/api.md, \"Access\")");
  }
  if (socket_.string().size() >= sizeof(sockaddr_un{}.sun_path)) {
    throw error(ec::invalid_argument, socket_.string() + ": too long for a Unix socket path");
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, socket_.c_str(), sizeof addr.sun_path - 1);
  if (fs::exists(fs::symlink_status(socket_, e))) {
    const int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const bool live = probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (live) {
      throw error(ec::io_error, socket_.string() + ": another process (another aoptd?) is listening on this socket; "
                                                   "stop it or give --socket another path");
    }
    if (!fs::is_socket(fs::symlink_status(socket_, e))) {
      throw error(ec::io_error, socket_.string() + ": exists and is not a socket; refusing to replace it");
    }
    fs::remove(socket_, e);
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw error(ec::io_error, std::string("socket(): ") + std::strerror(errno));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    listen_fd_ = -1;
    throw error(ec::io_error, socket_.string() + ": cannot listen: " + why);
  }
  if (shared) share_with_group(socket_, gid, 0660);
  else ::chmod(socket_.c_str(), 0600);
  if (::pipe2(wake_, O_CLOEXEC) != 0) throw error(ec::io_error, std::string("pipe(): ") + std::strerror(errno));
}

http_server::~http_server() {
  stop();
  for (int fd : wake_) {
    if (fd >= 0) ::close(fd);
  }
}

void http_server::start() { acceptor_ = std::thread([this] { accept_loop(); }); }

std::size_t http_server::open_connections() const {
  std::lock_guard<std::mutex> lock(mu_);
  return active_;
}

void http_server::stop(std::uint32_t wait_ms) {
  if (stopped_.exchange(true)) return;
  if (wake_[1] >= 0) (void)!::write(wake_[1], "x", 1);
  if (acceptor_.joinable()) acceptor_.join();
  if (listen_fd_ >= 0) {
    ::close(listen_fd_);
    listen_fd_ = -1;
    std::error_code e;
    fs::remove(socket_, e);
  }
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait_for(lock, std::chrono::milliseconds(wait_ms), [this] { return active_ == 0; });
}

void http_server::accept_loop() {
  while (!stopped_) {
    pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    const int r = ::poll(p, 2, -1);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 || (p[1].revents & POLLIN) != 0 || stopped_) break;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (active_ >= limits_.max_connections) {
        timeval tv{0, 200000};
        ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        send_response(fd, error_response(503, "busy", "too many connections (limits.max_connections = " +
                                                          std::to_string(limits_.max_connections) + "); retry later"));
        ::close(fd);
        continue;
      }
      ++active_;
    }
    std::thread([this, fd] {
      try {
        serve(fd);
      } catch (const std::exception& e) {
        common::logger()->error("http: connection failed: {}", e.what());
      }
      ::close(fd);
      std::lock_guard<std::mutex> lock(mu_);
      if (--active_ == 0) idle_.notify_all();
    }).detach();
  }
}

void http_server::serve(int fd) {
  const auto deadline = clock_type::now() + std::chrono::milliseconds(limits_.request_timeout_ms);
  timeval tv{static_cast<time_t>(limits_.request_timeout_ms / 1000),
             static_cast<suseconds_t>((limits_.request_timeout_ms % 1000) * 1000)};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  http_request req;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
    req.uid = cred.uid;
    req.pid = cred.pid;
  }
  std::string buf;
  bool timed_out = false;
  std::size_t head_end = std::string::npos;
  while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
    if (buf.size() > limits_.max_header_bytes) {
      send_response(fd, error_response(431, "headers_too_large", "request line and headers exceed " +
                                                                     std::to_string(limits_.max_header_bytes) + " bytes"));
      return;
    }
    if (!read_more(fd, buf, deadline, timed_out)) {
      if (timed_out) send_response(fd, error_response(408, "request_timeout", "the request did not arrive within " +
                                                                                 std::to_string(limits_.request_timeout_ms) + " ms"));
      return;
    }
  }
  if (head_end > limits_.max_header_bytes) {
    send_response(fd, error_response(431, "headers_too_large", "request line and headers exceed " +
                                                                   std::to_string(limits_.max_header_bytes) + " bytes"));
    return;
  }
  if (auto bad = parse_head(std::string_view(buf).substr(0, head_end + 2), req)) {
    send_response(fd, *bad);
    return;
  }
  if (req.headers.count("transfer-encoding")) {
    send_response(fd, error_response(411, "length_required",
                                     "chunked request bodies are not supported; send Content-Length", "Transfer-Encoding"));
    return;
  }
  std::size_t length = 0;
  if (auto it = req.headers.find("content-length"); it != req.headers.end()) {
    const auto& v = it->second;
    if (v.empty() || v.size() > 19 || v.find_first_not_of("0123456789") != std::string::npos) {
      send_response(fd, error_response(400, "bad_request", "Content-Length is not a number", "Content-Length"));
      return;
    }
    length = std::stoull(v);
  }
  if (length > limits_.max_body_bytes) {
    send_response(fd, error_response(413, "body_too_large", "the body has " + std::to_string(length) +
                                                                " bytes; limits.max_body_bytes is " +
                                                                std::to_string(limits_.max_body_bytes)));
    return;
  }
  buf.erase(0, head_end + 4);
  if (length > 0 && buf.size() < length) {
    auto exp = req.headers.find("expect");
    if (exp != req.headers.end() && lower(exp->second) == "100-continue") {
      if (!send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n")) return;
    }
  }
  while (buf.size() < length) {
    if (!read_more(fd, buf, deadline, timed_out)) {
      if (timed_out) send_response(fd, error_response(408, "request_timeout", "the body did not arrive within " +
                                                                                 std::to_string(limits_.request_timeout_ms) + " ms"));
      return;
    }
  }
  buf.resize(length);
  req.body = std::move(buf);
  http_response res;
  try {
    res = handler_(req);
  } catch (const std::exception& e) {
    common::logger()->error("http: {} {}: {}", req.method, req.target, e.what());
    res = error_response(500, "internal", std::string("internal error: ") + e.what());
  }
  send_response(fd, res);
}

}  // namespace aopt::daemon
