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
//   the model     --model, --model-path (SGLang, Dynamo's TensorRT-LLM), or
//                 vLLM's `vllm serve MODEL`
// A value follows its flag or an '='; a shell line (`sh -c "python3 -m
// dynamo.vllm ..."`) is split at white space.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/placement/model_catalog.hpp"
#include "topoplan/placement/role_phase.hpp"

namespace topoplan {

struct EngineFlags {
  std::uint32_t tp = 0, pp = 0, dp = 0, ep = 0;  // 0: not given
  RolePhase phase = RolePhase::other;
  bool phase_given = false;  // by --disaggregation-mode or --is-prefill-worker
  std::string model;         // the model served, as named ("" when not given)
};

EngineFlags read_engine_flags(const std::vector<std::string>& args);

/// A container's command and args as words: each argument split at white
/// space (a shell line `sh -c "python3 -m dynamo.vllm ..."` is one argument).
std::vector<std::string_view> command_words(const std::vector<std::string>& args);

/// The phase of a manifest's component: its engine's flags, else the first
/// of `names` holding `prefill` or `decode` (not both) as a part
/// (`VllmPrefillWorker`, `decode-leader`), case-insensitive; `other` when
/// none does.
RolePhase infer_role_phase(const std::vector<std::string_view>& names, const EngineFlags& flags);

/// The first model among the engines' `--model`s that the model table knows
/// (placement/model_catalog.hpp), for a service whose manifest gives no
/// workload; `named` is how the manifest named it.
std::optional<KnownModel> model_of(const std::vector<EngineFlags>& engines, std::string& named);

/// "workload facts of meta-llama/Llama-3.3-70B-Instruct (70.6B parameters, 80
/// layers, ...) taken from topoplan's model table", for the reader's warning;
/// without `lengths_given`, how to give the prompt and output lengths.
std::string model_note(const KnownModel& model, std::string_view named, bool lengths_given);

}  // namespace topoplan
