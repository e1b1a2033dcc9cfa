// The inference service the service tests share: issue 13's chat-70b, a
// disaggregated Llama-3-70B in three slices, one per rack.
#pragma once

#include <string>

namespace topoplan::test {

/// chat-70b as one entry of a jobs file: 3 slices, each packed in a rack, one
/// rack may fail while 2 slices remain; prefill 2 x 4 GPUs at tp 4, decode 8
/// at tp 8; Llama-3-70B's 320 KiB of KV a token. `more` adds fields, each
/// line indented by four spaces.
inline std::string chat70b(const std::string& more = "") {
  return R"(jobs:
  - name: chat-70b
    slices: 3
    pack: rack
    availability: {level: rack, survive: 1, min_slices: 2}
    roles:
      prefill: {replicas: 2, gpus_per_replica: 4, parallelism: {tp: 4}}
      decode:  {replicas: 1, gpus_per_replica: 8, parallelism: {tp: 8}}
    workload: {parameters: 70B, kv_bytes_per_token: 320KiB, prompt_tokens: 8000, output_tokens: 500}
)" + more;
}

}  // namespace topoplan::test
