#include "nccl_options.hpp"

#include <utility>

#include "topoplan/support/error.hpp"

namespace topoplan::cli {

void add_nccl_options(CLI::App& command, NcclOptions& options) {
  command
      .add_option("--nccl-version", options.version,
                  "the NCCL release whose tuner chooses algorithms and protocols, e.g. 2.26.2 (default: the "
                  "topology's nccl: version, else the newest the model follows, 2.30)")
      ->option_text("VERSION");
  command
      .add_option("--nccl", options.settings,
                  "an NCCL variable the job sets, over the topology's nccl: mapping (repeat it): NCCL_ALGO, "
                  "NCCL_PROTO, NCCL_NVLS_ENABLE, NCCL_BUFFSIZE, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS, "
                  "NCCL_MIN_CTAS, NCCL_MAX_CTAS, NCCL_NVLS_NCHANNELS or net_latency, e.g. NCCL_BUFFSIZE=16777216")
      ->option_text("NAME=VALUE")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

std::optional<NcclVersion> nccl_version_argument(const std::string& version) {
  if (version.empty()) return std::nullopt;
  std::string problem;
  auto parsed = parse_nccl_version(version, problem);
  if (!parsed) throw InputError({"--nccl-version", 0, 0}, problem);
  return parsed;
}

Topology with_nccl_settings(const std::vector<std::string>& settings, Topology topology) {
  const SourceLocation where{"--nccl", 0, 0};
  for (const std::string& word : settings) {
    std::string problem;
    std::optional<NcclSetting> setting = split_nccl_setting(word, where, problem);
    if (!setting) throw InputError(where, problem);
    topology = with_nccl_setting(std::move(topology), std::move(*setting));
  }
  return topology;
}

Topology with_nccl_options(const NcclOptions& options, Topology topology) {
  topology = with_nccl_settings(options.settings, std::move(topology));
  if (options.version.empty()) return topology;
  return with_nccl_setting(std::move(topology),
                           {std::string(kNcclVersionKey), options.version, {"--nccl-version", 0, 0}});
}

}  // namespace topoplan::cli
