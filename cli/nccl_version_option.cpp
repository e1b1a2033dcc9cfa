#include "nccl_version_option.hpp"

#include <utility>

namespace topoplan::cli {

void add_nccl_version_option(CLI::App& command, std::string& version) {
  command
      .add_option("--nccl-version", version,
                  "the NCCL release whose tuner chooses algorithms and protocols, e.g. 2.26.2 (default: the "
                  "topology's nccl: version, else the newest the model follows, 2.30)")
      ->option_text("VERSION");
}

std::optional<NcclVersion> nccl_version_argument(const std::string& version) {
  if (version.empty()) return std::nullopt;
  std::string problem;
  auto parsed = parse_nccl_version(version, problem);
  if (!parsed) throw InputError({"--nccl-version", 0, 0}, problem);
  return parsed;
}

Topology with_nccl_version(const std::string& version, Topology topology) {
  if (version.empty()) return topology;
  return with_nccl_setting(std::move(topology), {std::string(kNcclVersionKey), version, {"--nccl-version", 0, 0}});
}

}  // namespace topoplan::cli
