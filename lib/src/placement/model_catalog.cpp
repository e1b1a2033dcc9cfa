#include "topoplan/placement/model_catalog.hpp"

#include <array>
#include <cctype>

#include "topoplan/support/ascii.hpp"

namespace topoplan {

namespace {

ServiceWorkload gqa(double parameters, std::uint32_t layers, std::uint32_t hidden, std::uint32_t kv_heads,
                    std::uint32_t head_dim) {
  ServiceWorkload w;
  w.parameters = parameters;
  w.layers = layers;
  w.hidden = hidden;
  w.kv_heads = kv_heads;
  w.head_dim = head_dim;
  return w;
}

// DeepSeek-V3 and R1 share one architecture (config.json): 61 layers, hidden
// 7168, MLA with kv_lora_rank 512 + qk_rope_head_dim 64, 256 routed experts of
// moe_intermediate_size 2048 with 8 per token from layer 4 on
// (first_k_dense_replace 3: 58 MoE layers); 671B parameters, 37B active (the
// model card). Experts: 58 layers x 256 x 3 x 7168 x 2048 = 654B [derived].
ServiceWorkload deepseek_v3() {
  ServiceWorkload w;
  w.parameters = 671e9;
  w.active_parameters = 37e9;
  w.expert_parameters = 58.0 * 256 * 3 * 7168 * 2048;
  w.layers = 61;
  w.hidden = 7168;
  w.kv_latent = 512 + 64;
  w.experts_per_token = 8;
  w.moe_layers = 58;
  return w;
}

// Llama 3 (config.json of each): 8B 32 layers x 4096, 70B 80 x 8192, 405B
// 126 x 16384, all with 8 KV heads of 128 (hidden / attention heads); the
// parameter counts are the model cards' (8.03B, 70.6B, 405B). Their KV bytes
// a token in bf16 are 128, 320 and 504 KiB (shared/reference/inference.md).
struct Entry {
  std::string_view key;   // lower case, without org, suffixes stripped
  std::string_view name;  // the Hugging Face id
  ServiceWorkload (*make)();
};

ServiceWorkload llama_8b() { return gqa(8.03e9, 32, 4096, 8, 128); }
ServiceWorkload llama_70b() { return gqa(70.6e9, 80, 8192, 8, 128); }
ServiceWorkload llama_405b() { return gqa(405e9, 126, 16384, 8, 128); }

constexpr std::array kModels = {
    Entry{"llama-3.1-8b", "meta-llama/Llama-3.1-8B", llama_8b},
    Entry{"meta-llama-3.1-8b", "meta-llama/Meta-Llama-3.1-8B", llama_8b},
    Entry{"meta-llama-3-8b", "meta-llama/Meta-Llama-3-8B", llama_8b},
    Entry{"llama-3.1-70b", "meta-llama/Llama-3.1-70B", llama_70b},
    Entry{"meta-llama-3.1-70b", "meta-llama/Meta-Llama-3.1-70B", llama_70b},
    Entry{"llama-3.3-70b", "meta-llama/Llama-3.3-70B-Instruct", llama_70b},
    Entry{"meta-llama-3-70b", "meta-llama/Meta-Llama-3-70B", llama_70b},
    Entry{"llama-3.1-405b", "meta-llama/Llama-3.1-405B", llama_405b},
    Entry{"meta-llama-3.1-405b", "meta-llama/Meta-Llama-3.1-405B", llama_405b},
    Entry{"deepseek-v3", "deepseek-ai/DeepSeek-V3", deepseek_v3},
    Entry{"deepseek-r1", "deepseek-ai/DeepSeek-R1", deepseek_v3},
};

bool strip(std::string& s, std::string_view suffix) {
  if (s.size() <= suffix.size() || s.compare(s.size() - suffix.size(), suffix.size(), suffix) != 0) return false;
  s.resize(s.size() - suffix.size());
  return true;
}

}  // namespace

std::optional<KnownModel> known_model(std::string_view model) {
  while (!model.empty() && model.back() == '/') model.remove_suffix(1);
  if (std::size_t slash = model.rfind('/'); slash != std::string_view::npos) model.remove_prefix(slash + 1);
  std::string key = ascii_lower(model);
  bool fp8 = false;
  // Suffixes in the order repositories stack them: -Instruct-FP8, -0528.
  for (bool again = true; again;) {
    again = false;
    if (strip(key, "-fp8")) fp8 = again = true;
    if (strip(key, "-instruct")) again = true;
    if (key.size() > 5 && key[key.size() - 5] == '-' &&
        std::isdigit(static_cast<unsigned char>(key[key.size() - 4])) && std::isdigit(static_cast<unsigned char>(key.back())) &&
        std::isdigit(static_cast<unsigned char>(key[key.size() - 3])) && std::isdigit(static_cast<unsigned char>(key[key.size() - 2]))) {
      key.resize(key.size() - 5);
      again = true;
    }
  }
  for (const Entry& e : kModels)
    if (e.key == key) {
      KnownModel m{e.name, e.make()};
      if (fp8) m.workload.bytes_per_parameter = 1;
      return m;
    }
  return std::nullopt;
}

}  // namespace topoplan
