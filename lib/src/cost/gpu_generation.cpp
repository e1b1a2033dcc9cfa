#include "topoplan/cost/gpu_generation.hpp"

#include <array>
#include <cctype>
#include <string>

namespace topoplan {

namespace {

struct Entry {
  std::string_view prefix;
  Generation generation;
};

// Longer prefixes first where one extends another (A100 before A10, H200
// before H20, L40 before L4, GB200 is its own entry).
constexpr std::array<Entry, 21> kTable = {{
    {"V100", Generation::volta},
    {"A100", Generation::ampere},
    {"A800", Generation::ampere},
    {"A30", Generation::ampere},
    {"A40", Generation::ampere},
    {"A10", Generation::ampere},
    {"A16", Generation::ampere},
    {"L40", Generation::ampere},
    {"L20", Generation::ampere},
    {"L4", Generation::ampere},
    {"RTX", Generation::ampere},
    {"H100", Generation::hopper},
    {"H200", Generation::hopper},
    {"H800", Generation::hopper},
    {"H20", Generation::hopper},
    {"GH200", Generation::hopper},
    {"B100", Generation::blackwell},
    {"B200", Generation::blackwell},
    {"B300", Generation::blackwell},
    {"GB", Generation::blackwell},  // GB200, GB300
    {"MI", Generation::cdna},
}};

}  // namespace

std::string_view generation_name(Generation generation) {
  switch (generation) {
    case Generation::volta: return "volta";
    case Generation::ampere: return "ampere";
    case Generation::hopper: return "hopper";
    case Generation::blackwell: return "blackwell";
    case Generation::cdna: return "cdna";
    case Generation::lpu: return "lpu";
  }
  return "?";
}

std::optional<Generation> generation_from_model(std::string_view model) {
  std::string key;
  for (char c : model) {
    if (c == ' ' || c == '-' || c == '_') continue;
    key += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (key.rfind("NVIDIA", 0) == 0) key.erase(0, 6);
  for (const Entry& e : kTable)
    if (key.compare(0, e.prefix.size(), e.prefix) == 0) return e.generation;
  return std::nullopt;
}

int nccl_arch_index(Generation generation) {
  switch (generation) {
    case Generation::volta: return 0;
    case Generation::ampere: return 1;
    case Generation::hopper: return 2;
    case Generation::blackwell: return 3;
    case Generation::cdna:
    case Generation::lpu: return 2;
  }
  return 2;
}

bool has_nvls(Generation generation) {
  return generation == Generation::hopper || generation == Generation::blackwell;
}

}  // namespace topoplan
