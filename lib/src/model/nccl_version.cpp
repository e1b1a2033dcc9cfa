#include "topoplan/model/nccl_version.hpp"

#include <cctype>
#include <charconv>

#include <fmt/format.h>

namespace topoplan {

std::string NcclVersion::str() const { return fmt::format("{}.{}.{}", major, minor, patch); }

std::optional<NcclVersion> parse_nccl_version(std::string_view text, std::string& problem) {
  const std::string_view original = text;
  auto fail = [&](std::string_view why) -> std::optional<NcclVersion> {
    problem = fmt::format("NCCL version '{}' {}; give it as NCCL prints it, e.g. 2.26.2", original, why);
    return std::nullopt;
  };
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  // A packaging suffix: 2.26.2-1, 2.26.2+cuda12.8.
  if (const auto cut = text.find_first_of("-+"); cut != std::string_view::npos) text = text.substr(0, cut);
  int parts[3] = {0, 0, 0};
  int count = 0;
  while (!text.empty()) {
    if (count == 3) return fail("has more than three parts");
    if (!std::isdigit(static_cast<unsigned char>(text.front()))) return fail("is not MAJOR.MINOR[.PATCH]");
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || value > 9999) return fail("has a part out of range");
    parts[count++] = value;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    if (text.empty()) break;
    if (text.front() != '.' || text.size() == 1) return fail("is not MAJOR.MINOR[.PATCH]");
    text.remove_prefix(1);
  }
  if (count < 2) return fail("is not MAJOR.MINOR[.PATCH]");
  if (parts[0] < 2) return fail("is older than NCCL 2, whose tuner the model does not follow");
  return NcclVersion{parts[0], parts[1], parts[2]};
}

}  // namespace topoplan
