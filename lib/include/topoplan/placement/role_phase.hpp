// The phase of a serving role: prefill and decode of disaggregated serving,
// between which the KV cache moves, or anything else (a router, an
// aggregated worker). KV pricing, memory (a prefill replica holds only its
// prompts' KV) and the KV hand-over policy follow the phase, not the name.
#pragma once

#include <cstdint>
#include <string_view>

namespace topoplan {

/// What a role does for a request: the prefill and decode phases of
/// disaggregated serving (between which KV moves), or anything else.
enum class RolePhase : std::uint8_t { other, prefill, decode };
std::string_view role_phase_name(RolePhase phase);  // "other", "prefill", "decode"
/// The phase a role's own name implies: `prefill` and `decode` exactly.
RolePhase phase_named(std::string_view role_name);

}  // namespace topoplan
