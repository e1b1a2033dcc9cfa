#include "topoplan/support/name_list.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topoplan/support/ascii.hpp"

namespace topoplan {

std::optional<NameList> parse_name_list(std::string_view text, std::span<const std::string_view> names,
                                        std::string_view separators, std::string& problem) {
  NameList list;
  list.excluded = !text.empty() && text.front() == '^';
  if (list.excluded) text.remove_prefix(1);
  while (true) {
    const std::size_t end = text.find_first_of(separators);
    const std::string_view given = text.substr(0, end);
    if (given.empty()) {
      problem = "an empty name in the list";
      return std::nullopt;
    }
    const std::string name = ascii_lower(given);
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      problem = fmt::format("unknown name '{}'; NCCL's names are {}", given, fmt::join(names, ", "));
      return std::nullopt;
    }
    list.named |= 1u << static_cast<unsigned>(it - names.begin());
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return list;
}

}  // namespace topoplan
