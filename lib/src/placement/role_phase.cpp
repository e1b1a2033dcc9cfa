#include "topoplan/placement/role_phase.hpp"

#include <cctype>

namespace topoplan {

namespace {

// The arguments as words: a shell line (`sh -c "python3 -m dynamo.vllm
// ... --disaggregation-mode prefill"`) splits at white space.
std::vector<std::string_view> words(const std::vector<std::string>& args) {
  std::vector<std::string_view> out;
  for (const std::string& arg : args) {
    std::string_view rest = arg;
    while (!rest.empty()) {
      std::size_t begin = 0;
      while (begin < rest.size() && std::isspace(static_cast<unsigned char>(rest[begin]))) ++begin;
      std::size_t end = begin;
      while (end < rest.size() && !std::isspace(static_cast<unsigned char>(rest[end]))) ++end;
      if (end > begin) out.push_back(rest.substr(begin, end - begin));
      rest.remove_prefix(end);
    }
  }
  return out;
}

RolePhase mode_phase(std::string_view mode) {
  if (mode == "prefill") return RolePhase::prefill;
  if (mode == "decode") return RolePhase::decode;
  return RolePhase::other;
}

bool holds(const std::string& lower, std::string_view part) { return lower.find(part) != std::string::npos; }

}  // namespace

std::string_view role_phase_name(RolePhase phase) {
  switch (phase) {
    case RolePhase::prefill: return "prefill";
    case RolePhase::decode: return "decode";
    case RolePhase::other: break;
  }
  return "other";
}

RolePhase phase_named(std::string_view role_name) { return mode_phase(role_name); }

RolePhase infer_role_phase(const std::vector<std::string_view>& names, const std::vector<std::string>& args) {
  constexpr std::string_view kMode = "--disaggregation-mode";
  const std::vector<std::string_view> w = words(args);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] == kMode && i + 1 < w.size()) return mode_phase(w[i + 1]);
    if (w[i].size() > kMode.size() && w[i].substr(0, kMode.size()) == kMode && w[i][kMode.size()] == '=')
      return mode_phase(w[i].substr(kMode.size() + 1));
    if (w[i] == "--is-prefill-worker") return RolePhase::prefill;
  }
  for (std::string_view name : names) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool prefill = holds(lower, "prefill");
    const bool decode = holds(lower, "decode");
    if (prefill != decode) return prefill ? RolePhase::prefill : RolePhase::decode;
  }
  return RolePhase::other;
}

}  // namespace topoplan
