// The phase of a serving role: prefill and decode of disaggregated serving,
// between which the KV cache moves, or anything else (a router, an
// aggregated worker). KV pricing, memory (a prefill replica holds only its
// prompts' KV) and the KV hand-over policy follow the phase, not the name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace topoplan {

/// What a role does for a request: the prefill and decode phases of
/// disaggregated serving (between which KV moves), or anything else.
enum class RolePhase : std::uint8_t { other, prefill, decode };
std::string_view role_phase_name(RolePhase phase);  // "other", "prefill", "decode"
/// The phase a role's own name implies: `prefill` and `decode` exactly.
RolePhase phase_named(std::string_view role_name);
/// The phase a manifest's component implies by its engine's arguments or its
/// names, as Dynamo, llm-d, Grove and the LWS samples write them: first
/// `--disaggregation-mode prefill|decode` (Dynamo's vLLM, SGLang and
/// TensorRT-LLM workers) or `--is-prefill-worker` (older Dynamo vLLM), then
/// the first of `names` holding `prefill` or `decode` (not both) as a part
/// (`VllmPrefillWorker`, `decode-leader`), case-insensitive; `other` when
/// none does.
RolePhase infer_role_phase(const std::vector<std::string_view>& names, const std::vector<std::string>& args);

}  // namespace topoplan
