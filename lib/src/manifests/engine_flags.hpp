// What a serving engine's command line says about its placement: its
// parallelism (tensor, pipeline, data, expert) and, for disaggregated
// serving, whether it is a prefill or a decode worker. Read from the
// containers' command and args of Grove, LWS and Dynamo manifests, whose
// pods run vLLM, SGLang or TensorRT-LLM. Private to lib/.
//
// Flags (the engines' documented server arguments):
//   vLLM          --tensor-parallel-size/-tp, --pipeline-parallel-size/-pp,
//                 --data-parallel-size/-dp, --enable-expert-parallel (EP over
//                 TP x DP ranks)
//   SGLang        --tp-size/--tp, --pp-size, --dp-size/--dp, --ep-size/--ep
//   TensorRT-LLM  --tp_size, --pp_size, --ep_size (trtllm-serve)
//   Dynamo        --disaggregation-mode prefill|decode (its vLLM, SGLang and
//                 TensorRT-LLM workers), --is-prefill-worker (older vLLM)
// A value follows its flag or an '='; a shell line (`sh -c "python3 -m
// dynamo.vllm ..."`) is split at white space.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/role_phase.hpp"

namespace topoplan {

struct EngineFlags {
  std::uint32_t tp = 0, pp = 0, dp = 0, ep = 0;  // 0: not given
  RolePhase phase = RolePhase::other;
  bool phase_given = false;  // by --disaggregation-mode or --is-prefill-worker
};

EngineFlags read_engine_flags(const std::vector<std::string>& args);

/// The phase of a manifest's component: its engine's flags, else the first
/// of `names` holding `prefill` or `decode` (not both) as a part
/// (`VllmPrefillWorker`, `decode-leader`), case-insensitive; `other` when
/// none does.
RolePhase infer_role_phase(const std::vector<std::string_view>& names, const EngineFlags& flags);

}  // namespace topoplan
