// The datasheet roofs by model name: normalisation, longer prefixes before
// shorter ones, the precision paths each part has, and no row for a part
// without a datasheet entry.
#include "topoplan/cost/accelerator_spec.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("model names resolve as nvidia-smi and topology files spell them") {
  const auto h100 = accelerator_spec("H100");
  REQUIRE(h100);
  for (const char* name : {"NVIDIA H100 80GB HBM3", "h100-sxm", "NVIDIA_H100"}) {
    const auto s = accelerator_spec(name);
    REQUIRE(s);
    CHECK(s->peak_flops == h100->peak_flops);
    CHECK(s->hbm_bytes_per_s == h100->hbm_bytes_per_s);
  }
  CHECK_FALSE(accelerator_spec("H20"));  // no datasheet row: not taken for an H200
  CHECK_FALSE(accelerator_spec("LPU"));
  CHECK_FALSE(accelerator_spec(""));
}

TEST_CASE("H200 is an H100 with faster HBM, Blackwell has more of both") {
  const auto h100 = accelerator_spec("H100"), h200 = accelerator_spec("H200"), b200 = accelerator_spec("B200"),
             gb200 = accelerator_spec("GB200");
  REQUIRE((h100 && h200 && b200 && gb200));
  CHECK(h200->peak_flops == h100->peak_flops);
  CHECK(h200->hbm_bytes_per_s > h100->hbm_bytes_per_s);
  CHECK(b200->peak_flops > h100->peak_flops);
  // GB200 is its own row, not B200's under a longer name.
  CHECK(gb200->peak_flops > b200->peak_flops);
}

TEST_CASE("narrow weights use the tensor paths the part has") {
  const auto a100 = accelerator_spec("A100"), h100 = accelerator_spec("H100"), b200 = accelerator_spec("B200");
  REQUIRE((a100 && h100 && b200));
  CHECK(a100->peak_flops_at(1) == a100->peak_flops);  // no FP8 path
  CHECK(h100->peak_flops_at(1) == 2 * h100->peak_flops);
  CHECK(h100->peak_flops_at(0.5) == h100->peak_flops_at(1));  // no FP4 path
  CHECK(b200->peak_flops_at(0.5) == 2 * b200->peak_flops_at(1));
  CHECK(h100->peak_flops_at(4) == h100->peak_flops);  // fp32 weights: counted as bf16
}
