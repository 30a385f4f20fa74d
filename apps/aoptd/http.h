// A small HTTP/1.1 server on a Unix domain socket: one thread per connection (at most
// max_connections; more get 503 at once), every request read against a deadline (408), header
// and body size limits (431, 413), Content-Length bodies only, `Connection: close` after every
// response. The peer's uid (SO_PEERCRED) comes with each request. A response is either a body or
// a stream (newline-delimited JSON written until the producer ends or the client goes away).
// No TCP: the socket's directory is created 0700 and must be the daemon user's, writable by no one
// else (else the server refuses to start).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace aopt::daemon {

struct http_request {
  std::string method;
  std::string target;                        // as sent: path and query
  std::string path;                          // percent-decoded, without the query
  std::map<std::string, std::string> query;  // percent-decoded
  std::map<std::string, std::string> headers;  // names lower-case
  std::string body;
  std::int64_t uid = -1;  // the peer's uid (SO_PEERCRED); -1 when unknown
  std::int64_t pid = -1;
};

struct http_response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  // When set, the body is streamed: called with a writer that returns false once the client is
  // gone; the response ends when the function returns.
  std::function<void(const std::function<bool(std::string_view)>& write)> stream;
};

struct http_limits {
  std::size_t max_header_bytes = 16384;
  std::size_t max_body_bytes = 64u << 20;
  std::uint32_t request_timeout_ms = 10000;
  std::size_t max_connections = 64;
};

// The JSON error body {"error": {"code", "message", "field"}} and its response.
http_response error_response(int status, const std::string& code, const std::string& message,
                             const std::string& field = "");
const char* status_text(int status);

class http_server {
 public:
  using handler = std::function<http_response(const http_request&)>;

  // Creates the socket's directory when missing; refuses (aopt::error(io_error) naming it, its
  // owner and mode) a directory that is not this user's, is a symbolic link, or that its group or
  // others may write to; refuses a socket another process still listens on, removes a stale one,
  // binds and listens. Without `group` the directory is 0700 and the socket 0600 (this user and
  // root only); with a group name the directory it creates is 0710 (enough to reach the socket)
  // and the socket 0660, both owned by that group, so its members may connect
  // (aopt::error(invalid_argument) when there is no such group).
  http_server(std::filesystem::path socket, http_limits limits, handler h, const std::string& group = "");
  ~http_server();  // stop()
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  void start();  // the accept thread
  // Stops accepting and removes the socket file; waits up to `wait_ms` for open connections.
  void stop(std::uint32_t wait_ms = 3000);
  std::size_t open_connections() const;

 private:
  void accept_loop();
  void serve(int fd);

  std::filesystem::path socket_;
  http_limits limits_;
  handler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe that ends the accept loop's poll
  std::thread acceptor_;
  std::atomic<bool> stopped_{false};
  mutable std::mutex mu_;
  std::condition_variable idle_;
  std::size_t active_ = 0;
};

}  // namespace aopt::daemon
