// aopt-llm-stub: the scripted OpenAI-compatible endpoint as a program, for end-to-end tests and
// demos without a model. Serves POST /v1/chat/completions and /v1/embeddings on 127.0.0.1 from a
// script (see llm/include/aopt/llm/scripted_server.h and docs/llm.md) until SIGTERM or SIGINT.
//
//   aopt-llm-stub --script rules.json --port-file /tmp/x/port [--port 0]
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include <CLI/CLI.hpp>

#include "aopt/common/error.h"
#include "aopt/common/fs.h"
#include "aopt/llm/scripted_server.h"

int main(int argc, char** argv) {
  CLI::App app{"aopt-llm-stub: a scripted OpenAI-compatible endpoint on 127.0.0.1"};
  std::string script;
  std::string port_file;
  int port = 0;
  app.add_option("--script", script, "JSON file: the rules to answer from")->required();
  app.add_option("--port-file", port_file, "write the chosen port here once serving");
  app.add_option("--port", port, "port to bind (0 = any free port)")->check(CLI::Range(0, 65535));
  CLI11_PARSE(app, argc, argv);

  // Block the stop signals in every thread (the server's workers inherit this mask), then wait
  // for them here: a clean stop instead of dying inside a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  try {
    aopt::llm::scripted_server server(aopt::llm::load_script(script));
    server.start(port);
    if (!port_file.empty()) aopt::common::write_text_file_atomic(port_file, std::to_string(server.port()) + "\n");
    std::fprintf(stderr, "aopt-llm-stub: serving %s (script %s); stop with SIGTERM or Ctrl-C\n",
                 server.base_url().c_str(), script.c_str());
    int sig = 0;
    sigwait(&stop_signals, &sig);
    server.stop();
    std::fprintf(stderr, "aopt-llm-stub: stopped after %zu requests\n", server.request_count());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "aopt-llm-stub: %s\n", e.what());
    return 1;
  }
  return 0;
}
