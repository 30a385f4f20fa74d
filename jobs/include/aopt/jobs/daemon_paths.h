// Where aoptd listens and keeps its state by default: one definition for the daemon and for the
// `aopt` client commands.
#pragma once

#include <filesystem>

namespace aopt::jobs {

// $AOPT_SOCKET when set (clients only: with_env), else $XDG_RUNTIME_DIR/aopt/aoptd.sock, else
// /tmp/aopt-<uid>/aoptd.sock.
std::filesystem::path default_socket_path(bool with_env = false);
// $XDG_STATE_HOME/aopt, else $HOME/.local/state/aopt, else ./aopt-state.
std::filesystem::path default_state_dir();

}  // namespace aopt::jobs
