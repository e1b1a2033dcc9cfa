#include "topoplan/cost/accelerator_spec.hpp"

#include <array>
#include <cctype>
#include <string>

namespace topoplan {

namespace {

struct Row {
  std::string_view prefix;
  double tflops;  // dense BF16
  double gbps;    // HBM, GB/s
  double fp8;     // dense FP8 over BF16
  double fp4;     // dense FP4 over BF16
};

// The header's table; longer prefixes first where one extends another
// (GB200 before GB, H200 before H20 would matter if H20 had a row).
constexpr std::array<Row, 10> kRows = {{
    {"A100", 312, 2039, 1, 1},
    {"A800", 312, 2039, 1, 1},
    {"H100", 989, 3350, 2, 2},
    {"H800", 989, 3350, 2, 2},
    {"H200", 989, 4800, 2, 2},
    {"B200", 2250, 8000, 2, 4},
    {"B300", 2250, 8000, 2, 4},
    {"GB200", 2500, 8000, 2, 4},
    {"GB300", 2500, 8000, 2, 4},
    {"MI300X", 1307, 5300, 2, 2},
}};

}  // namespace

std::optional<AcceleratorSpec> accelerator_spec(std::string_view model) {
  std::string key;
  for (char c : model) {
    if (c == ' ' || c == '-' || c == '_') continue;
    key += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  if (key.rfind("NVIDIA", 0) == 0) key.erase(0, 6);
  for (const Row& r : kRows)
    if (key.compare(0, r.prefix.size(), r.prefix) == 0) return AcceleratorSpec{r.tflops * 1e12, r.gbps * 1e9, r.fp8, r.fp4};
  return std::nullopt;
}

double AcceleratorSpec::peak_flops_at(double bytes_per_parameter) const {
  if (bytes_per_parameter <= 0.5) return peak_flops * fp4_factor;
  if (bytes_per_parameter <= 1) return peak_flops * fp8_factor;
  return peak_flops;
}

}  // namespace topoplan
