// The subcommand table of the topoplan executable. Each command lives in its
// own cmd_*.cpp: it declares its options on a CLI11 subcommand and returns the
// action to run once parsing succeeded, so every error goes through one catch
// in main().
#pragma once

#include <functional>
#include <span>
#include <string_view>

#include <CLI/CLI.hpp>

namespace topoplan::cli {

/// Exit statuses, the same for every command.
enum ExitCode : int {
  kSuccess = 0,  // done, positive verdict
  kNegative = 1, // done, negative verdict (invalid topology, failing check)
  kInputError = 2,  // bad usage or bad input
};

using Action = std::function<int()>;

struct Command {
  std::string_view name;
  std::string_view summary;
  Action (*setup)(CLI::App& command);
};

std::span<const Command> commands();

// One setup function per command file.
Action setup_topology(CLI::App& command);
Action setup_render(CLI::App& command);
Action setup_cost(CLI::App& command);
Action setup_plan(CLI::App& command);
Action setup_evaluate(CLI::App& command);
Action setup_compare(CLI::App& command);
Action setup_check(CLI::App& command);
Action setup_import(CLI::App& command);
Action setup_export(CLI::App& command);
Action setup_export_plan(CLI::App& command);

}  // namespace topoplan::cli
