// Architecture facts of well-known open models, for services whose manifest
// names its model (an engine's --model) but gives no workload: parameters,
// layers, hidden size and the KV layout (GQA heads or the MLA latent), from
// each model's published config.json on Hugging Face. With them, memory fit,
// KV sizes and the latency estimates work for manifests from the wild;
// prompt and output lengths still come from the user (topoplan-jobs(5)).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "topoplan/placement/service.hpp"

namespace topoplan {

struct KnownModel {
  std::string_view name;  // as its Hugging Face repository names it
  ServiceWorkload workload;
};

/// The model a Hugging Face id or path names ("meta-llama/Llama-3.3-70B-Instruct",
/// "/models/Llama-3.1-8B-Instruct-FP8"): its last path part, case-insensitive,
/// with an -Instruct, -FP8 or date suffix; FP8 weights are 1 byte each.
/// nullopt when the table does not hold it.
std::optional<KnownModel> known_model(std::string_view model);

}  // namespace topoplan
