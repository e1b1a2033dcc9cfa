// What a serving manifest cannot say in its own fields but topoplan needs to
// price it: prompt and output lengths (KV hand-over, TTFT, memory), SLO
// targets, and whether the transfer engine allows same-node KV hand-over.
// Read from annotations on a Grove PodCliqueSet, a Dynamo
// DynamoGraphDeployment or an LWS DisaggregatedSet (topoplan-formats(5)):
//   topoplan.io/prompt-tokens, topoplan.io/output-tokens   whole numbers >= 1
//   topoplan.io/ttft-ms, topoplan.io/tpot-ms               numbers > 0
//   topoplan.io/kv-same-host                               "true" or "false"
// Dynamo's SLA planner component gives its own TTFT and ITL targets
// (planner_targets); an annotation wins over them. Private to lib/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../io/yaml_support.hpp"
#include "topoplan/placement/service.hpp"

namespace topoplan {

struct ServiceAnnotations {
  std::optional<std::uint32_t> prompt_tokens, output_tokens;
  std::optional<double> ttft_ms, tpot_ms;
  std::optional<bool> kv_same_host;
  bool lengths() const { return prompt_tokens.has_value() || output_tokens.has_value(); }
};

/// The annotations above from `annotations` (metadata.annotations, possibly
/// undefined); a malformed value is an error at its line and column.
ServiceAnnotations read_service_annotations(const yaml::Node& annotations, const std::string& file,
                                            DiagnosticSink& sink);

/// Writes what was given onto the service (after its workload is known).
void apply_service_annotations(const ServiceAnnotations& a, Service& s);

/// Dynamo's SLA planner targets from its command line: `--ttft MS` and
/// `--itl MS` (inter-token latency, topoplan's TPOT), or the `ttft` and
/// `itl` keys of an inline `--config` JSON; the planner's defaults (500 ms
/// and 50 ms, dynamo/planner/defaults.py SLAPlannerDefaults) for those not
/// given. nullopt when throughput (SLA) scaling is turned off
/// (`--disable-throughput-scaling`, or `enable_throughput_scaling: false`).
struct PlannerTargets {
  double ttft_ms = 500;
  double itl_ms = 50;
  bool given = false;  // any target was on the command line
};
std::optional<PlannerTargets> planner_targets(const std::vector<std::string>& args);

}  // namespace topoplan
