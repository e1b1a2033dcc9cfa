// Tiny placement instances of every preset family, small enough for the
// exact solver (exact_placement.hpp): the topo policy's plan is held against
// the optimum on each by tests/unit/quality_gap_test.cpp and
// bench/quality_gap_bench.cpp. Sizes follow common practice (tensor
// parallelism inside a node or NVLink domain, pipelines across it); the mixes
// are contended on purpose, with little room left over.
#pragma once

#include <string>
#include <vector>

namespace topoplan::test {

struct QualityInstance {
  std::string name;
  std::string topology;  // a preset argument
  std::string level;     // the level the exact solver counts nodes per domain of
  std::string jobs;      // a native jobs manifest
};

inline std::vector<QualityInstance> quality_instances() {
  return {
      {"nvl72-3r-5jobs", "gb200-nvl72:racks=3", "rack", R"(jobs:
  - {name: pretrain-405b, nodes: 20, parallelism: {tp: 4, pp: 4, dp: 5}, workload: {parameters: 405B, activation_bytes: 256MiB}}
  - {name: pretrain-70b, nodes: 12, parallelism: {tp: 4, pp: 2, dp: 6}, workload: {parameters: 70B, activation_bytes: 128MiB}}
  - {name: finetune-8b, nodes: 8, workload: {parameters: 8B}}
  - {name: finetune-13b, nodes: 6, workload: {parameters: 13B}}
  - {name: eval-70b, nodes: 4, parallelism: {tp: 4, pp: 4}, workload: {parameters: 70B}}
)"},
      {"nvl72-2r-34of36", "gb200-nvl72:racks=2", "rack", R"(jobs:
  - {name: small-8b, nodes: 4, workload: {parameters: 8B}}
  - {name: pretrain-70b, nodes: 22, workload: {parameters: 70B}}
  - {name: finetune-13b, nodes: 6, workload: {parameters: 13B}}
  - {name: eval-8b, nodes: 2, workload: {parameters: 8B}}
)"},
      {"nvl72-2r-full", "gb200-nvl72:racks=2", "rack", R"(jobs:
  - {name: pretrain-405b, nodes: 20, parallelism: {tp: 4, pp: 4, dp: 5}, workload: {parameters: 405B, activation_bytes: 256MiB}}
  - {name: finetune-70b, nodes: 8, workload: {parameters: 70B}}
  - {name: finetune-8b, nodes: 4, workload: {parameters: 8B}}
  - {name: eval-8b, nodes: 4, workload: {parameters: 8B}}
)"},
      {"nvl72-3r-required", "gb200-nvl72:racks=3", "rack", R"(jobs:
  - {name: eval-8b, nodes: 6, workload: {parameters: 8B}}
  - {name: finetune-70b, nodes: 14, required: rack, workload: {parameters: 70B}}
  - {name: pretrain-70b, nodes: 24, parallelism: {tp: 4, pp: 4, dp: 6}, workload: {parameters: 70B, activation_bytes: 128MiB}}
  - {name: finetune-13b, nodes: 8, required: rack, workload: {parameters: 13B}}
)"},
      {"nvl72-2r-order", "gb200-nvl72:racks=2", "rack", R"(jobs:
  - {name: small-1b, nodes: 4, workload: {parameters: 1B}}
  - {name: pretrain-70b-a, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 70B, activation_bytes: 128MiB}}
  - {name: pretrain-70b-b, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 70B, activation_bytes: 128MiB}}
)"},
      {"nvl72-3r-order", "gb200-nvl72:racks=3", "rack", R"(jobs:
  - {name: small-1b, nodes: 4, workload: {parameters: 1B}}
  - {name: pretrain-405b, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 405B, activation_bytes: 256MiB}}
  - {name: pretrain-70b-a, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 70B, activation_bytes: 128MiB}}
  - {name: eval-8b, nodes: 2, workload: {parameters: 8B}}
  - {name: pretrain-70b-b, nodes: 16, parallelism: {tp: 4, pp: 4, dp: 4}, workload: {parameters: 70B, activation_bytes: 128MiB}}
)"},
      {"nvl72-3r-two-span", "gb200-nvl72:racks=3", "rack", R"(jobs:
  - {name: finetune-8b, nodes: 4, workload: {parameters: 8B}}
  - {name: pretrain-70b, nodes: 24, workload: {parameters: 70B}}
  - {name: pretrain-405b, nodes: 24, parallelism: {tp: 4, pp: 4, dp: 6}, workload: {parameters: 405B, activation_bytes: 256MiB}}
)"},
      {"gb300-2r-order", "gb300-nvl72:racks=2", "rack", R"(jobs:
  - {name: eval-8b, nodes: 2, workload: {parameters: 8B}}
  - {name: pretrain-405b, nodes: 18, parallelism: {tp: 4, pp: 9, dp: 2}, workload: {parameters: 405B, activation_bytes: 256MiB}}
  - {name: finetune-70b, nodes: 10, workload: {parameters: 70B}}
  - {name: finetune-13b, nodes: 6, workload: {parameters: 13B}}
)"},
      {"superpod-2su", "dgx-h100:nodes=64", "su", R"(jobs:
  - {name: finetune-13b, nodes: 8, workload: {parameters: 13B}}
  - {name: pretrain-175b, nodes: 40, parallelism: {tp: 8, pp: 8, dp: 5}, workload: {parameters: 175B, activation_bytes: 192MiB}}
  - {name: finetune-70b, nodes: 12, workload: {parameters: 70B}}
)"},
      {"superpod-2su-required", "dgx-h100:nodes=64", "su", R"(jobs:
  - {name: eval-8b, nodes: 6, workload: {parameters: 8B}}
  - {name: moe-pretrain, nodes: 24, required: su, workload: {parameters: 70B}}
  - {name: pretrain-70b, nodes: 24, workload: {parameters: 70B}}
  - {name: finetune-13b, nodes: 8, workload: {parameters: 13B}}
)"},
      {"superpod-2su-order", "dgx-h100:nodes=64", "su", R"(jobs:
  - {name: finetune-8b, nodes: 8, workload: {parameters: 8B}}
  - {name: pretrain-175b, nodes: 28, parallelism: {tp: 8, pp: 4, dp: 7}, workload: {parameters: 175B, activation_bytes: 192MiB}}
  - {name: pretrain-70b, nodes: 28, parallelism: {tp: 8, pp: 4, dp: 7}, workload: {parameters: 70B, activation_bytes: 128MiB}}
)"},
      {"pcie-3r-forced-split", "pcie-8gpu:nodes=12", "rack", R"(jobs:
  - {name: finetune-13b-a, nodes: 3, workload: {parameters: 13B}}
  - {name: finetune-8b, nodes: 2, workload: {parameters: 8B}}
  - {name: finetune-13b-b, nodes: 3, workload: {parameters: 13B}}
  - {name: finetune-13b-c, nodes: 2, workload: {parameters: 13B}}
  - {name: eval-1b, nodes: 2, workload: {parameters: 1B}}
)"},
      {"pcie-3r", "pcie-8gpu:nodes=12", "rack", R"(jobs:
  - {name: finetune-8b, nodes: 2, workload: {parameters: 8B}}
  - {name: finetune-13b, nodes: 6, workload: {parameters: 13B}}
  - {name: eval-8b, nodes: 3, workload: {parameters: 8B}}
)"},
      {"pcie-2r-required", "pcie-8gpu:nodes=8", "rack", R"(jobs:
  - {name: eval-8b, nodes: 1, workload: {parameters: 8B}}
  - {name: finetune-8b, nodes: 3, required: rack, workload: {parameters: 8B}}
  - {name: finetune-13b, nodes: 3, workload: {parameters: 13B}}
  - {name: small-1b, nodes: 1, workload: {parameters: 1B}}
)"},
  };
}

}  // namespace topoplan::test
