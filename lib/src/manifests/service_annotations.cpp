#include "service_annotations.hpp"

#include <fmt/format.h>

#include "engine_flags.hpp"

namespace topoplan {

namespace {

constexpr std::string_view kPromptTokens = "topoplan.io/prompt-tokens";
constexpr std::string_view kOutputTokens = "topoplan.io/output-tokens";
constexpr std::string_view kTtftMs = "topoplan.io/ttft-ms";
constexpr std::string_view kTpotMs = "topoplan.io/tpot-ms";
constexpr std::string_view kKvSameHost = "topoplan.io/kv-same-host";

// A token count, 1 to 10 million (far beyond any context window).
std::optional<std::uint32_t> tokens(const yaml::Node& n, std::string_view key, const std::string& file,
                                    DiagnosticSink& sink) {
  auto text = yaml::scalar(n, file, sink, key);
  if (!text) return std::nullopt;
  auto v = yaml::parse_integer(*text);
  if (!v || *v < 1 || *v > 10'000'000) {
    sink.error(yaml::where(file, n),
               fmt::format("'{}' is a number of tokens from 1 to 10000000, not '{}'", key, *text));
    return std::nullopt;
  }
  return static_cast<std::uint32_t>(*v);
}

// Milliseconds, above 0 and at most a day.
std::optional<double> millis(const yaml::Node& n, std::string_view key, const std::string& file, DiagnosticSink& sink) {
  auto text = yaml::scalar(n, file, sink, key);
  if (!text) return std::nullopt;
  auto v = yaml::parse_number(*text);
  if (!v || *v <= 0 || *v > 86'400'000) {
    sink.error(yaml::where(file, n), fmt::format("'{}' is a time in milliseconds above 0, not '{}'", key, *text));
    return std::nullopt;
  }
  return *v;
}

std::optional<double> number_of(std::string_view text) {
  auto v = yaml::parse_number(text);
  if (!v || *v <= 0) return std::nullopt;
  return v;
}

}  // namespace

ServiceAnnotations read_service_annotations(const yaml::Node& annotations, const std::string& file,
                                            DiagnosticSink& sink) {
  ServiceAnnotations a;
  if (!annotations.IsMap()) return a;
  auto at = [&](std::string_view key) { return annotations[key]; };
  if (yaml::Node n = at(kPromptTokens); n.IsDefined()) a.prompt_tokens = tokens(n, kPromptTokens, file, sink);
  if (yaml::Node n = at(kOutputTokens); n.IsDefined()) a.output_tokens = tokens(n, kOutputTokens, file, sink);
  if (yaml::Node n = at(kTtftMs); n.IsDefined()) a.ttft_ms = millis(n, kTtftMs, file, sink);
  if (yaml::Node n = at(kTpotMs); n.IsDefined()) a.tpot_ms = millis(n, kTpotMs, file, sink);
  if (yaml::Node n = at(kKvSameHost); n.IsDefined())
    if (auto text = yaml::scalar(n, file, sink, kKvSameHost)) {
      if (*text == "true" || *text == "false")
        a.kv_same_host = *text == "true";
      else
        sink.error(yaml::where(file, n), fmt::format("'{}' is \"true\" or \"false\", not '{}'", kKvSameHost, *text));
    }
  return a;
}

void apply_service_annotations(const ServiceAnnotations& a, Service& s) {
  if (a.prompt_tokens) s.workload.prompt_tokens = *a.prompt_tokens;
  if (a.output_tokens) s.workload.output_tokens = *a.output_tokens;
  if (a.ttft_ms) s.ttft_ms = *a.ttft_ms;
  if (a.tpot_ms) s.tpot_ms = *a.tpot_ms;
  if (a.kv_same_host) s.kv_same_host = *a.kv_same_host;
}

std::optional<PlannerTargets> planner_targets(const std::vector<std::string>& args) {
  PlannerTargets t;
  // Arguments as the container gets them; a flag's value follows it or an
  // '=', and a shell line is split at white space (an inline JSON config
  // stays one argument, as Kubernetes passes it).
  std::vector<std::string> words;
  for (const std::string& arg : args) {
    if (arg.find('{') != std::string::npos) {
      words.push_back(arg);
      continue;
    }
    const std::vector<std::string> one{arg};  // the words view it
    for (std::string_view w : command_words(one)) words.emplace_back(w);
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string flag = words[i];
    std::optional<std::string> value;
    if (std::size_t eq = flag.find('='); eq != std::string::npos && flag.starts_with("--")) {
      value = flag.substr(eq + 1);
      flag.resize(eq);
    }
    const std::string next = value ? *value : i + 1 < words.size() ? words[i + 1] : std::string();
    if (flag == "--disable-throughput-scaling") return std::nullopt;
    if (flag == "--ttft" || flag == "--itl") {
      if (auto v = number_of(next)) {
        (flag == "--ttft" ? t.ttft_ms : t.itl_ms) = *v;
        t.given = true;
      }
    } else if (flag == "--config" && next.find('{') != std::string::npos) {
      // JSON is YAML; a config that does not parse is the planner's error.
      try {
        const std::vector<yaml::Node> docs = yaml::Document::parse(next);
        if (docs.empty() || !docs.front().IsMap()) continue;
        const yaml::Node& config = docs.front();
        if (yaml::Node e = config["enable_throughput_scaling"]; e.IsScalar() && e.Scalar() == "false")
          return std::nullopt;
        for (const char* key : {"ttft", "itl"})
          if (yaml::Node n = config[key]; n.IsScalar())
            if (auto v = number_of(n.Scalar())) {
              (std::string_view(key) == "ttft" ? t.ttft_ms : t.itl_ms) = *v;
              t.given = true;
            }
      } catch (const yaml::Document::ParseError&) {
        continue;
      }
    }
  }
  return t;
}

}  // namespace topoplan
