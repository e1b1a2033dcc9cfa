#include "topoplan/model/nccl_environment.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "topoplan/model/topology.hpp"
#include "topoplan/support/name_list.hpp"

namespace topoplan {

namespace {

// NCCL's list syntax over `names`: a mask, or the reason it is not one.
template <std::size_t N>
std::optional<std::uint8_t> parse_list(std::string_view text, const std::array<std::string_view, N>& names,
                                       std::string& problem) {
  const auto list = parse_name_list(text, names, ",", problem);
  if (!list) return std::nullopt;
  return static_cast<std::uint8_t>(list->selected((1u << N) - 1));
}

// NCCL_BUFFSIZE's value: bytes, or the reason it is not a buffer size.
std::optional<std::uint64_t> parse_buffer_size(std::string_view text, std::string& problem) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string_view digits = hex ? text.substr(2) : text;
  std::uint64_t bytes = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bytes, hex ? 16 : 10);
  if (ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    problem = fmt::format("NCCL_BUFFSIZE '{}' must be a whole number of bytes (8388608 or 0x800000)", text);
    return std::nullopt;
  }
  if (!hex && digits.size() > 1 && digits[0] == '0') {
    problem = fmt::format("NCCL_BUFFSIZE '{}' has a leading 0, which NCCL reads as octal; write it in decimal", text);
    return std::nullopt;
  }
  if (ec == std::errc::result_out_of_range || bytes == 0 || bytes > 0x7fffffffULL) {
    problem = fmt::format("NCCL_BUFFSIZE '{}' must be from 1 to 2147483647 bytes (NCCL keeps it in an int)", text);
    return std::nullopt;
  }
  return bytes;
}

// The variables whose value is a number of channels (parse_channels).
bool is_channel_count(std::string_view name) {
  return name == "NCCL_MIN_NCHANNELS" || name == "NCCL_MAX_NCHANNELS" || name == "NCCL_MIN_CTAS" ||
         name == "NCCL_MAX_CTAS" || name == "NCCL_NVLS_NCHANNELS";
}

// A channel count's value: channels, or the reason it is not one. NCCL reads
// an int and holds it to MAXCHANNELS (connect.cc ncclMinNchannels,
// ncclMaxNchannels; init.cc for the CTAs); a count beyond that is refused
// here rather than quietly lowered.
std::optional<int> parse_channels(std::string_view name, std::string_view text, std::string& problem) {
  int channels = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), channels);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || channels < 1 ||
      channels > kNcclMaxChannels) {
    problem = fmt::format("{} '{}' must be a whole number of channels from 1 to {} (NCCL's MAXCHANNELS)", name, text,
                          kNcclMaxChannels);
    return std::nullopt;
  }
  return channels;
}

// `net_latency`'s value: microseconds, or the reason it is not a latency.
std::optional<double> parse_net_latency(std::string_view text, std::string& problem) {
  double us = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), us, std::chars_format::fixed);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(us >= 0) || us > 10000) {
    problem = fmt::format(
        "net_latency '{}' must be the microseconds the network plugin reports to NCCL, a plain "
        "number from 0 to 10000 (75 for aws-ofi-nccl on p4d and p5)",
        text);
    return std::nullopt;
  }
  return us;
}

}  // namespace

std::string NcclEnvironment::describe() const {
  std::string out;
  for (const NcclSetting& s : settings)
    out += (out.empty() ? "" : " ") + (s.name == kNcclVersionKey      ? "NCCL " + s.value
                                       : s.name == kNcclNetLatencyKey ? "net latency " + s.value + " us"
                                                                      : s.name + "=" + s.value);
  return out;
}

std::optional<NcclSetting> split_nccl_setting(std::string_view word, const SourceLocation& where,
                                              std::string& problem) {
  const std::size_t eq = word.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    problem = fmt::format("'{}' must be NAME=VALUE, e.g. NCCL_BUFFSIZE=16777216", word);
    return std::nullopt;
  }
  return NcclSetting{std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)), where};
}

std::string apply_nccl_setting(NcclEnvironment& env, NcclSetting setting) {
  std::string problem;
  if (setting.name == "NCCL_ALGO") {
    if (setting.value.find_first_of(":;") != std::string::npos)
      return "per-collective NCCL_ALGO lists (allreduce:tree;...) are not modelled; give one list for all";
    const auto mask = parse_list(setting.value, kNcclAlgorithmNames, problem);
    if (!mask) return fmt::format("NCCL_ALGO '{}': {}", setting.value, problem);
  } else if (setting.name == "NCCL_PROTO") {
    const auto mask = parse_list(setting.value, kNcclProtocolNames, problem);
    if (!mask) return fmt::format("NCCL_PROTO '{}': {}", setting.value, problem);
  } else if (setting.name == "NCCL_NVLS_ENABLE") {
    if (setting.value != "0" && setting.value != "1")
      return fmt::format("NCCL_NVLS_ENABLE '{}' must be 0 or 1", setting.value);
  } else if (setting.name == "NCCL_BUFFSIZE") {
    if (!parse_buffer_size(setting.value, problem)) return problem;
  } else if (setting.name == kNcclVersionKey) {
    if (!parse_nccl_version(setting.value, problem)) return problem;
  } else if (setting.name == kNcclNetLatencyKey) {
    if (!parse_net_latency(setting.value, problem)) return problem;
  } else if (is_channel_count(setting.name)) {
    if (!parse_channels(setting.name, setting.value, problem)) return problem;
  } else {
    return fmt::format(
        "'{}' is not a variable the cost model follows; it follows {}, '{}' (the NCCL release) and '{}' (the "
        "latency the network plugin reports)",
        setting.name, fmt::join(kNcclVariables, ", "), kNcclVersionKey, kNcclNetLatencyKey);
  }

  // The masks follow from the latest setting of each variable.
  NcclEnvironment next;
  next.settings = env.settings;
  next.settings.erase(std::remove_if(next.settings.begin(), next.settings.end(),
                                     [&](const NcclSetting& s) { return s.name == setting.name; }),
                      next.settings.end());
  next.settings.push_back(std::move(setting));
  for (const NcclSetting& s : next.settings) {
    if (s.name == "NCCL_ALGO") next.algorithms = parse_list(s.value, kNcclAlgorithmNames, problem).value_or(0);
    if (s.name == "NCCL_PROTO") next.protocols = parse_list(s.value, kNcclProtocolNames, problem).value_or(0);
    if (s.name == kNcclVersionKey) next.version = parse_nccl_version(s.value, problem);
    if (s.name == "NCCL_BUFFSIZE") next.simple_buffer_bytes = parse_buffer_size(s.value, problem);
    if (s.name == kNcclNetLatencyKey) next.net_latency_us = parse_net_latency(s.value, problem);
    if (s.name == "NCCL_MIN_NCHANNELS") next.min_channels = parse_channels(s.name, s.value, problem);
    if (s.name == "NCCL_MAX_NCHANNELS") next.max_channels = parse_channels(s.name, s.value, problem);
    if (s.name == "NCCL_MIN_CTAS") next.min_ctas = parse_channels(s.name, s.value, problem);
    if (s.name == "NCCL_MAX_CTAS") next.max_ctas = parse_channels(s.name, s.value, problem);
    if (s.name == "NCCL_NVLS_NCHANNELS") next.nvls_channels = parse_channels(s.name, s.value, problem);
  }
  constexpr std::uint8_t kNvlsBits = 0x0c;  // nvls, nvlstree
  for (const NcclSetting& s : next.settings)
    if (s.name == "NCCL_NVLS_ENABLE" && s.value == "0") next.algorithms &= static_cast<std::uint8_t>(~kNvlsBits);
  if ((next.algorithms & 0x0f) == 0) return "the NCCL environment leaves none of ring, tree, nvls, nvlstree";
  if (next.protocols == 0) return "the NCCL environment leaves no protocol";
  env = std::move(next);
  return {};
}

Topology with_nccl_setting(Topology topology, NcclSetting setting) {
  const SourceLocation where = setting.where;
  if (std::string problem = apply_nccl_setting(topology.nccl_environment_, std::move(setting)); !problem.empty())
    throw InputError(where, problem);
  return topology;
}

}  // namespace topoplan
