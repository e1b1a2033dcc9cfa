// `--nccl-version VERSION` and `--nccl NAME=VALUE`: the NCCL release whose
// tuner chooses and the NCCL variables the job sets, for every command that
// prices collectives (cost, plan, evaluate, compare, check, whatif,
// simulate), as a topology file's `nccl:` mapping would.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "topoplan/model/topology.hpp"

namespace topoplan::cli {

struct NcclOptions {
  std::string version;                // --nccl-version; "" for the topology's
  std::vector<std::string> settings;  // --nccl NAME=VALUE, in order
};

/// Adds --nccl-version and --nccl to a command.
void add_nccl_options(CLI::App& command, NcclOptions& options);

/// The option's release; empty when `version` is "". Throws InputError
/// (located at --nccl-version) for a bad version.
std::optional<NcclVersion> nccl_version_argument(const std::string& version);

/// `topology` with the --nccl settings applied over its nccl: mapping, in
/// order (a later one replaces an earlier one of the same name). Throws
/// InputError (located at --nccl) for a setting that is not NAME=VALUE or
/// that the model does not follow.
Topology with_nccl_settings(const std::vector<std::string>& settings, Topology topology);

/// `topology` priced as the options say: the --nccl settings, then the
/// --nccl-version release.
Topology with_nccl_options(const NcclOptions& options, Topology topology);

}  // namespace topoplan::cli
