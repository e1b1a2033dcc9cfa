#include "engine_flags.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "topoplan/support/ascii.hpp"

namespace topoplan {

std::vector<std::string_view> command_words(const std::vector<std::string>& args) {
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

namespace {

// A size as the engines take it: 1 to 1,000,000.
std::optional<std::uint32_t> size(std::string_view text) {
  std::uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > 1'000'000) return std::nullopt;
  return v;
}

RolePhase mode_phase(std::string_view mode) {
  if (mode == "prefill") return RolePhase::prefill;
  if (mode == "decode") return RolePhase::decode;
  return RolePhase::other;
}

}  // namespace

EngineFlags read_engine_flags(const std::vector<std::string>& args) {
  struct Flag {
    std::string_view name;
    std::uint32_t EngineFlags::*field;
  };
  static constexpr Flag kSizes[] = {
      {"--tensor-parallel-size", &EngineFlags::tp}, {"-tp", &EngineFlags::tp},       {"--tp-size", &EngineFlags::tp},
      {"--tp", &EngineFlags::tp},                   {"--tp_size", &EngineFlags::tp}, {"--pipeline-parallel-size", &EngineFlags::pp},
      {"-pp", &EngineFlags::pp},                    {"--pp-size", &EngineFlags::pp}, {"--pp_size", &EngineFlags::pp},
      {"--data-parallel-size", &EngineFlags::dp},   {"-dp", &EngineFlags::dp},       {"--dp-size", &EngineFlags::dp},
      {"--dp", &EngineFlags::dp},                   {"--ep-size", &EngineFlags::ep}, {"--ep", &EngineFlags::ep},
      {"--ep_size", &EngineFlags::ep},
  };
  EngineFlags f;
  bool expert_parallel = false;
  const std::vector<std::string_view> w = command_words(args);
  for (std::size_t i = 0; i < w.size(); ++i) {
    std::string_view flag = w[i];
    std::optional<std::string_view> value;
    if (std::size_t eq = flag.find('='); eq != std::string_view::npos && flag.substr(0, 1) == "-") {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    }
    auto next = [&]() -> std::string_view {
      if (value) return *value;
      return i + 1 < w.size() ? w[i + 1] : std::string_view();
    };
    if (flag == "--disaggregation-mode") {
      f.phase = mode_phase(next());
      f.phase_given = true;
    } else if (flag == "--is-prefill-worker") {
      f.phase = RolePhase::prefill;
      f.phase_given = true;
    } else if (flag == "--enable-expert-parallel") {
      expert_parallel = true;
    } else if (flag == "--model" || flag == "--model-path") {
      if (f.model.empty()) f.model = std::string(next());
    } else if (flag == "serve" && i > 0 && (w[i - 1] == "vllm" || w[i - 1].ends_with("/vllm"))) {
      if (f.model.empty() && i + 1 < w.size() && w[i + 1].substr(0, 1) != "-") f.model = std::string(w[i + 1]);
    } else {
      for (const Flag& s : kSizes)
        if (flag == s.name)
          if (auto v = size(next())) f.*s.field = *v;
    }
  }
  // vLLM's expert parallelism spans its TP x DP ranks.
  if (expert_parallel && f.ep == 0) f.ep = std::max<std::uint32_t>(f.tp, 1) * std::max<std::uint32_t>(f.dp, 1);
  return f;
}

RolePhase infer_role_phase(const std::vector<std::string_view>& names, const EngineFlags& flags) {
  if (flags.phase_given) return flags.phase;
  for (std::string_view name : names) {
    const std::string lower = ascii_lower(name);
    const bool prefill = lower.find("prefill") != std::string::npos;
    const bool decode = lower.find("decode") != std::string::npos;
    if (prefill != decode) return prefill ? RolePhase::prefill : RolePhase::decode;
  }
  return RolePhase::other;
}

std::optional<KnownModel> model_of(const std::vector<EngineFlags>& engines, std::string& named) {
  for (const EngineFlags& e : engines)
    if (!e.model.empty())
      if (auto m = known_model(e.model)) {
        named = e.model;
        return m;
      }
  return std::nullopt;
}

std::string model_note(const KnownModel& model, std::string_view named, bool lengths_given) {
  const ServiceWorkload& w = model.workload;
  std::string kv = w.kv_latent ? fmt::format("an MLA latent of {}", w.kv_latent)
                               : fmt::format("{} KV heads of {}", w.kv_heads, w.head_dim);
  const std::string lower_named = ascii_lower(named), lower_name = ascii_lower(model.name);
  const std::string as = lower_named.ends_with(lower_name.substr(lower_name.rfind('/') + 1))
                             ? std::string()
                             : fmt::format(" (read as {})", model.name);
  return fmt::format(
      "model '{}'{}: workload facts from topoplan's model table ({:g}B parameters{}, {} layers, "
      "hidden {}, {}{}){}",
      named, as, w.parameters / 1e9,
      w.active_parameters > 0 ? fmt::format(", {:g}B active", w.active_parameters / 1e9) : "", w.layers, w.hidden, kv,
      w.bytes_per_parameter == 1 ? ", FP8 weights" : "",
      lengths_given ? ""
                    : "; the manifest gives no prompt or output lengths (annotate "
                      "topoplan.io/prompt-tokens and topoplan.io/output-tokens to price KV and TTFT)");
}

}  // namespace topoplan
