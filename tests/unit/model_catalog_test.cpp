// The model table: Hugging Face ids and paths to architecture facts, whose
// KV sizes agree with the ones the reference note derives from the configs.
#include "topoplan/placement/model_catalog.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("model table: ids, paths and suffixes name the same architecture") {
  struct Case {
    const char* id;
    double parameters;
    double kv_bytes;  // a token, bf16 (shared/reference/inference.md, "Sizes")
  };
  const Case cases[] = {
      {"meta-llama/Llama-3.1-8B-Instruct", 8.03e9, 131072},
      {"/models/Meta-Llama-3-8B", 8.03e9, 131072},
      {"meta-llama/Llama-3.3-70B-Instruct", 70.6e9, 327680},
      {"LLAMA-3.1-70B", 70.6e9, 327680},
      {"meta-llama/Llama-3.1-405B-Instruct-FP8", 405e9, 516096},
      {"deepseek-ai/DeepSeek-R1-0528", 671e9, 70272},
      {"deepseek-ai/DeepSeek-V3", 671e9, 70272},
  };
  for (const Case& c : cases) {
    INFO(c.id);
    const auto m = known_model(c.id);
    REQUIRE(m);
    CHECK(m->workload.parameters == c.parameters);
    CHECK(derive_kv_bytes_per_token(m->workload) == c.kv_bytes);
  }
  // FP8 weights are one byte a parameter; the others bf16.
  CHECK(known_model("meta-llama/Llama-3.1-405B-Instruct-FP8")->workload.bytes_per_parameter == 1);
  CHECK(known_model("meta-llama/Llama-3.1-405B")->workload.bytes_per_parameter == 2);
  // DeepSeek's MoE facts: 37B of 671B active, 8 experts a token in 58 layers.
  const auto r1 = known_model("deepseek-ai/DeepSeek-R1");
  CHECK(r1->workload.active_parameters == 37e9);
  CHECK(r1->workload.experts_per_token == 8);
  CHECK(r1->workload.moe_layers == 58);
  CHECK(r1->workload.expert_parameters < r1->workload.parameters);
  for (const char* unknown : {"Qwen/Qwen3-0.6B", "llama", "", "/", "meta-llama/Llama-3.3-70B-Instruct-extra"})
    CHECK_FALSE(known_model(unknown));
}
