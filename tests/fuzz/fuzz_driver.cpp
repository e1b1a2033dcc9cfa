// libFuzzer entry points for every harness in one executable:
//   topoplan_fuzz --harness=NAME [libFuzzer options] [CORPUS...]
// (libFuzzer ignores options that start with "--"; they are ours).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "harnesses.hpp"
#include "topoplan/support/error.hpp"

namespace {

const topoplan::fuzz::Harness* selected = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  constexpr std::string_view kOption = "--harness=";
  for (int i = 1; i < *argc; ++i) {
    std::string_view arg = (*argv)[i];
    if (arg.substr(0, kOption.size()) != kOption) continue;
    for (const topoplan::fuzz::Harness& h : topoplan::fuzz::harnesses())
      if (h.name == arg.substr(kOption.size())) selected = &h;
  }
  if (selected) return 0;
  std::fprintf(stderr, "usage: %s --harness=NAME [libFuzzer options] [CORPUS...]\nharnesses:", (*argv)[0]);
  for (const topoplan::fuzz::Harness& h : topoplan::fuzz::harnesses())
    std::fprintf(stderr, " %.*s", static_cast<int>(h.name.size()), h.name.data());
  std::fprintf(stderr, "\n");
  std::exit(2);
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    selected->run(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const topoplan::InputError&) {
    // Refused with a diagnostic: what bad input should get.
  }
  return 0;
}
