// Subcommands of `aopt`. Each registers its options on the app and returns the function that runs it.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace aopt::app {

using command_fn = std::function<int()>;

// `aopt eval OP_DIR ...`: compile, check and time one operator package.
command_fn add_eval_command(CLI::App& app);

}  // namespace aopt::app
