#include "topoplan/placement/role_phase.hpp"

namespace topoplan {

std::string_view role_phase_name(RolePhase phase) {
  switch (phase) {
    case RolePhase::prefill: return "prefill";
    case RolePhase::decode: return "decode";
    case RolePhase::other: break;
  }
  return "other";
}

RolePhase phase_named(std::string_view role_name) {
  if (role_name == "prefill") return RolePhase::prefill;
  if (role_name == "decode") return RolePhase::decode;
  return RolePhase::other;
}

}  // namespace topoplan
