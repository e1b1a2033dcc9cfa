// `--nccl-version VERSION`: the NCCL release whose tuner chooses, for every
// command that places or replays jobs (plan, evaluate, compare, check,
// whatif, simulate), as a topology file's `nccl: {version: ...}` would.
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "topoplan/model/topology.hpp"

namespace topoplan::cli {

/// Adds --nccl-version to a command.
void add_nccl_version_option(CLI::App& command, std::string& version);

/// The option's release; empty when `version` is "". Throws InputError
/// (located at --nccl-version) for a bad version.
std::optional<NcclVersion> nccl_version_argument(const std::string& version);

/// `topology` priced as NCCL `version` chooses; unchanged when `version` is
/// "". Throws InputError (located at --nccl-version) for a bad version.
Topology with_nccl_version(const std::string& version, Topology topology);

}  // namespace topoplan::cli
