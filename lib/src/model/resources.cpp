#include "topoplan/model/resources.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace topoplan {

namespace {

// 128-bit intermediates keep exact values of quantities up to 2^62 units.
__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

constexpr std::int64_t kMaxValue = std::int64_t{1} << 62;

// Bytes-like resources print with binary suffixes; counts stay plain.
bool is_byte_resource(std::string_view r) {
  return r == "memory" || r == "ephemeral-storage" || r == "storage" || r.starts_with("hugepages-");
}

}  // namespace

std::optional<std::int64_t> parse_quantity(std::string_view resource, std::string_view text) {
  // The number: digits with at most one point, at least one digit.
  // A sign is allowed; "-0" is zero, anything else negative is refused below.
  std::size_t i = 0;
  const bool negative = !text.empty() && text[0] == '-';
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) ++i;
  u128 digits = 0;
  int fraction_digits = 0;
  int significant = 0;
  bool any_digit = false;
  bool point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.') {
      if (point) return std::nullopt;
      point = true;
      continue;
    }
    if (c < '0' || c > '9') break;
    any_digit = true;
    if (digits == 0 && c == '0') {
      if (point) ++fraction_digits;
      continue;
    }
    if (++significant > 36) return std::nullopt;  // more precision than any real quantity
    digits = digits * 10 + static_cast<unsigned>(c - '0');
    if (point) ++fraction_digits;
  }
  if (!any_digit) return std::nullopt;
  // The suffix.
  std::string_view suffix = text.substr(i);
  int exp10 = -fraction_digits;
  int exp2 = 0;
  if (suffix.empty()) {
  } else if (suffix == "Ki") exp2 = 10;
  else if (suffix == "Mi") exp2 = 20;
  else if (suffix == "Gi") exp2 = 30;
  else if (suffix == "Ti") exp2 = 40;
  else if (suffix == "Pi") exp2 = 50;
  else if (suffix == "Ei") exp2 = 60;
  else if (suffix == "n") exp10 -= 9;
  else if (suffix == "u") exp10 -= 6;
  else if (suffix == "m") exp10 -= 3;
  else if (suffix == "k") exp10 += 3;
  else if (suffix == "M") exp10 += 6;
  else if (suffix == "G") exp10 += 9;
  else if (suffix == "T") exp10 += 12;
  else if (suffix == "P") exp10 += 15;
  else if (suffix == "E") exp10 += 18;
  else if (suffix[0] == 'e' || suffix[0] == 'E') {
    std::string_view e = suffix.substr(1);
    bool minus = false;
    if (!e.empty() && (e[0] == '+' || e[0] == '-')) {
      minus = e[0] == '-';
      e.remove_prefix(1);
    }
    if (e.empty() || e.size() > 4) return std::nullopt;
    int v = 0;
    for (char c : e) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    exp10 += minus ? -v : v;
  } else {
    return std::nullopt;
  }
  if (digits == 0) return 0;
  if (negative) return std::nullopt;
  if (resource == "cpu") exp10 += 3;  // millicores

  // value = digits * 10^exp10 * 2^exp2, rounded up.
  const u128 limit = static_cast<u128>(kMaxValue);
  u128 value = digits;
  for (int k = 0; k < exp2; ++k) {
    value <<= 1;
    if (value > limit * 1'000'000'000'000'000'000ull) return std::nullopt;
  }
  if (exp10 >= 0) {
    for (int k = 0; k < exp10; ++k) {
      value *= 10;
      if (value > limit) return std::nullopt;
    }
  } else {
    u128 divisor = 1;
    bool tiny = false;
    for (int k = 0; k < -exp10; ++k) {
      if (divisor > value) {
        tiny = true;  // below one unit: rounds up to 1
        break;
      }
      divisor *= 10;
    }
    value = tiny ? 1 : (value + divisor - 1) / divisor;
  }
  if (value > limit) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

std::string format_quantity(std::string_view resource, std::int64_t value) {
  if (resource == "cpu") return value % 1000 == 0 ? fmt::format("{}", value / 1000) : fmt::format("{}m", value);
  if (is_byte_resource(resource) && value != 0) {
    constexpr std::pair<int, std::string_view> kSuffixes[] = {{60, "Ei"}, {50, "Pi"}, {40, "Ti"},
                                                               {30, "Gi"}, {20, "Mi"}, {10, "Ki"}};
    for (auto [shift, suffix] : kSuffixes)
      if (value % (std::int64_t{1} << shift) == 0) return fmt::format("{}{}", value >> shift, suffix);
  }
  return fmt::format("{}", value);
}

ResourceList::ResourceList(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) set(e.first, e.second);
}

std::optional<std::int64_t> ResourceList::get(std::string_view name) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it == entries_.end() || it->first != name) return std::nullopt;
  return it->second;
}

void ResourceList::set(std::string_view name, std::int64_t value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name)
    it->second = value;
  else
    entries_.emplace(it, std::string(name), value);
}

void ResourceList::erase(std::string_view name) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                             [](const Entry& e, std::string_view n) { return e.first < n; });
  if (it != entries_.end() && it->first == name) entries_.erase(it);
}

void ResourceList::add(const ResourceList& other, std::int64_t factor) {
  for (const auto& [name, v] : other.entries_) {
    i128 sum = static_cast<i128>(value(name)) + static_cast<i128>(v) * factor;
    sum = std::clamp<i128>(sum, -kMaxValue, kMaxValue);
    set(name, static_cast<std::int64_t>(sum));
  }
}

FitCount fit_count(const ResourceList& requests, const ResourceList& capacity) {
  FitCount best;
  bool first = true;
  for (const auto& [name, request] : requests) {
    std::int64_t count = std::numeric_limits<std::int32_t>::max();
    if (request != 0) count = std::clamp<std::int64_t>(capacity.value(name) / request, 0, count);
    // Names come in sorted order, so a tie keeps the alphabetically first.
    if (first || count < best.count) {
      best.count = count;
      best.limiting = name;
      first = false;
    }
  }
  return best;
}

std::string Taint::str() const {
  return value.empty() ? fmt::format("{}:{}", key, effect) : fmt::format("{}={}:{}", key, value, effect);
}

}  // namespace topoplan
