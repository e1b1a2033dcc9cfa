// topoplan: topology-aware placement planning for accelerator clusters.
// Parses the command line, runs one command, and turns every error into one
// `topoplan: error: ...` line per problem and exit status 2.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "command.hpp"
#include "usage_message.hpp"
#include "topoplan/support/error.hpp"

namespace {

constexpr const char* kFooter = R"(Examples:
  topoplan topology show gb200-nvl72:racks=8
  topoplan plan gb200-nvl72:racks=8 samples/jobs-nvl72.yaml -o plan.yaml
  topoplan cost gb200-nvl72:racks=8 -c allreduce -s 1G --plan plan.yaml --job pretrain-405b
  topoplan compare gb200-nvl72:racks=8 samples/jobs-nvl72.yaml
  topoplan render gb200-nvl72:racks=8 --level rack -o cluster.svg

Run 'topoplan COMMAND --help' for a command's options; manuals: topoplan(1),
topoplan-topology(5), topoplan-jobs(5), topoplan-formats(5), topoplan-cost(7).

TOPO is a built-in topology (see 'topoplan topology list'), optionally with
parameters (NAME:key=value,...), or a topology file (see topoplan-topology(5)).
Exit status: 0 success, 1 negative verdict, 2 usage or input error.)";

void print_error(const std::string& message) { topoplan::write_diagnostic(std::cerr, "error", {{}, message}); }

// The innermost subcommand the user selected, for targeted suggestions.
const CLI::App* deepest(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return deepest(*sub);
  return &app;
}

int usage_error(const CLI::App& app, const CLI::ParseError& e) {
  std::string message = topoplan::cli::usage_message(e.what());
  const CLI::App* where = deepest(app);
  std::vector<std::string> remaining = where->remaining();
  if (remaining.empty()) remaining = app.remaining();
  bool wants_command = !where->get_subcommands({}).empty();
  if (!remaining.empty() && wants_command && remaining.front().rfind('-', 0) != 0)
    message = "unknown command '" + remaining.front() + "'";
  else if (!remaining.empty() && wants_command)
    message = "unknown option '" + remaining.front() + "'";
  if (message == "a command is required") {
    std::vector<std::string> names;
    for (const CLI::App* sub : where->get_subcommands({})) names.push_back(sub->get_name());
    message = fmt::format("a command is required: {}", fmt::join(names, ", "));
  }
  if (!remaining.empty()) {
    std::vector<std::string> names;
    for (const CLI::App* sub : where->get_subcommands({})) names.push_back(sub->get_name());
    for (const CLI::Option* opt : where->get_options())
      for (const std::string& name : opt->get_lnames()) names.push_back("--" + name);
    std::string hint = topoplan::did_you_mean(remaining.front(), names);
    if (!hint.empty()) message += "; " + hint;
  }
  print_error(message);
  std::string path;
  for (const CLI::App* a = where; a && a->get_parent(); a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  fmt::print(std::cerr, "run 'topoplan {}--help' for usage\n", path.empty() ? "" : path + " ");
  return topoplan::cli::kInputError;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace topoplan::cli;
  CLI::App app{"topoplan: topology-aware placement planning for accelerator clusters", "topoplan"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("topoplan ") + TOPOPLAN_VERSION);
  app.require_subcommand(1);

  std::vector<std::pair<CLI::App*, Action>> actions;
  for (const Command& command : commands()) {
    CLI::App* sub = app.add_subcommand(std::string(command.name), std::string(command.summary));
    actions.emplace_back(sub, command.setup(*sub));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    return usage_error(app, e);
  }

  try {
    for (auto& [sub, action] : actions)
      if (sub->parsed()) return action();
    return kInputError;
  } catch (const topoplan::InputError& e) {
    topoplan::write_diagnostics(std::cerr, "error", e.diagnostics());
    return kInputError;
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
    return kInputError;
  } catch (const std::exception& e) {
    print_error(fmt::format("internal error: {}", e.what()));
    return 3;
  }
}
