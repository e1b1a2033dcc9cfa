#include "topoplan/io/hostlist.hpp"

#include <charconv>
#include <cstdint>

#include <fmt/format.h>

namespace topoplan {

namespace {

// One bracket group: the texts of its numbers, in order.
using Group = std::vector<std::string>;

// Splits at commas that are not inside brackets.
bool split_top_level(std::string_view list, std::vector<std::string_view>& items, std::string& error) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < list.size(); ++i) {
    char c = list[i];
    if (c == '[') {
      if (++depth > 1) {
        error = fmt::format("nested '[' at offset {}", i + 1);
        return false;
      }
    } else if (c == ']') {
      if (--depth < 0) {
        error = fmt::format("unmatched ']' at offset {}", i + 1);
        return false;
      }
    } else if (c == ',' && depth == 0) {
      items.push_back(list.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) {
    error = "unclosed '['";
    return false;
  }
  items.push_back(list.substr(start));
  return true;
}

bool parse_number(std::string_view text, std::uint64_t& value) {
  if (text.empty() || text.size() > 18) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  return ec == std::errc() && end == text.data() + text.size();
}

// Expands the inside of one bracket group, e.g. "001-003,7".
bool expand_group(std::string_view body, Group& out, std::size_t limit, std::string& error) {
  std::size_t start = 0;
  while (start <= body.size()) {
    std::size_t comma = body.find(',', start);
    std::string_view entry = body.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    std::size_t dash = entry.find('-');
    std::string_view low_text = entry.substr(0, dash);
    std::string_view high_text = dash == std::string_view::npos ? low_text : entry.substr(dash + 1);
    std::uint64_t low = 0;
    std::uint64_t high = 0;
    if (!parse_number(low_text, low) || !parse_number(high_text, high)) {
      error = fmt::format("'[{}]': '{}' is not a number or a range like 1-8", body, entry);
      return false;
    }
    if (high < low) {
      error = fmt::format("'[{}]': range {} runs backwards", body, entry);
      return false;
    }
    if (high - low >= limit || out.size() + (high - low + 1) > limit) {
      error = fmt::format("'[{}]' names more than {} items", body, limit);
      return false;
    }
    std::size_t width = low_text.size() > 1 && low_text[0] == '0' ? low_text.size() : 0;
    for (std::uint64_t v = low; v <= high; ++v) out.push_back(fmt::format("{:0{}}", v, width));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return true;
}

// Expands one item (no top-level commas) into `out`.
bool expand_item(std::string_view item, std::vector<std::string>& out, std::size_t limit, std::string& error) {
  std::vector<std::string> partial{std::string()};
  std::size_t i = 0;
  while (i < item.size()) {
    std::size_t open = item.find('[', i);
    std::string_view literal = item.substr(i, open == std::string_view::npos ? std::string_view::npos : open - i);
    if (literal.find(']') != std::string_view::npos) {
      error = "unmatched ']'";
      return false;
    }
    for (std::string& p : partial) p += literal;
    if (open == std::string_view::npos) break;
    std::size_t close = item.find(']', open);
    if (close == std::string_view::npos) {
      error = "unclosed '['";
      return false;
    }
    Group group;
    if (!expand_group(item.substr(open + 1, close - open - 1), group, limit, error)) return false;
    if (partial.size() * group.size() > limit) {
      error = fmt::format("the list names more than {} items", limit);
      return false;
    }
    std::vector<std::string> next;
    next.reserve(partial.size() * group.size());
    for (const std::string& p : partial)
      for (const std::string& g : group) next.push_back(p + g);
    partial = std::move(next);
    i = close + 1;
  }
  if (out.size() + partial.size() > limit) {
    error = fmt::format("the list names more than {} items", limit);
    return false;
  }
  for (std::string& p : partial) out.push_back(std::move(p));
  return true;
}

}  // namespace

HostlistExpansion expand_hostlist(std::string_view list, std::size_t limit) {
  HostlistExpansion result;
  std::vector<std::string_view> items;
  if (!split_top_level(list, items, result.error)) return result;
  for (std::string_view item : items) {
    if (item.empty()) {
      result.error = "empty name in list";
      result.names.clear();
      return result;
    }
    if (!expand_item(item, result.names, limit, result.error)) {
      result.names.clear();
      return result;
    }
  }
  return result;
}

// Compression works on names cut into text and numbers ("r0004-n07/gpu3" is
// r, 0004, -n, 07, /gpu, 3). From the last number to the first, consecutive
// names equal in everything but that number merge, their values joining one
// bracket list. Since a hostlist expands its leftmost bracket outermost, a
// merge at position k of names already equal to the right of k expands to
// exactly the names it replaces, in their order: "r0004-n[00-17]/gpu[0-3]".
std::string compress_hostlist(const std::vector<std::string>& names) {
  // Tokens are views into `names`, which outlive this call: no copies.
  struct Token {
    std::string_view text;                  // literal text, or empty for a number
    std::vector<std::string_view> numbers;  // the number's values (digits), in order
  };
  using Name = std::vector<Token>;
  std::vector<Name> items;
  items.reserve(names.size());
  std::size_t max_numbers = 0;
  for (const std::string& full : names) {
    const std::string_view name = full;
    Name tokens;
    std::size_t numbers = 0;
    // Names that already hold list syntax stay as they are.
    if (name.find_first_of("[],") != std::string_view::npos) {
      tokens.push_back({name, {}});
      items.push_back(std::move(tokens));
      continue;
    }
    for (std::size_t i = 0; i < name.size();) {
      std::size_t j = i;
      bool digit = name[i] >= '0' && name[i] <= '9';
      while (j < name.size() && (name[j] >= '0' && name[j] <= '9') == digit) ++j;
      std::uint64_t value = 0;
      if (digit && parse_number(name.substr(i, j - i), value)) {
        tokens.push_back({{}, {name.substr(i, j - i)}});
        ++numbers;
      } else if (!tokens.empty() && !tokens.back().text.empty()) {
        // Adjacent in the same name: extend the view.
        tokens.back().text = std::string_view(tokens.back().text.data(), tokens.back().text.size() + (j - i));
      } else {
        tokens.push_back({name.substr(i, j - i), {}});
      }
      i = j;
    }
    max_numbers = std::max(max_numbers, numbers);
    items.push_back(std::move(tokens));
  }
  // Equal except at token `k` (which must be a number in both).
  auto mergeable = [](const Name& a, const Name& b, std::size_t k) {
    if (a.size() != b.size() || k >= a.size() || !a[k].text.empty() || !b[k].text.empty()) return false;
    for (std::size_t t = 0; t < a.size(); ++t)
      if (t != k && (a[t].text != b[t].text || a[t].numbers != b[t].numbers)) return false;
    return true;
  };
  for (std::size_t n = max_numbers; n-- > 0;) {
    std::vector<Name> merged;
    merged.reserve(items.size());
    for (Name& item : items) {
      // Token index of the n-th number of this item.
      std::size_t k = 0, seen = 0;
      for (; k < item.size(); ++k)
        if (item[k].text.empty() && seen++ == n) break;
      if (!merged.empty() && k < item.size() && mergeable(merged.back(), item, k)) {
        for (std::string_view v : item[k].numbers) merged.back()[k].numbers.push_back(v);
      } else {
        merged.push_back(std::move(item));
      }
    }
    items = std::move(merged);
  }

  auto padded = [](std::string_view d) { return d.size() > 1 && d[0] == '0'; };
  auto value = [](std::string_view d) {
    std::uint64_t v = 0;
    parse_number(d, v);
    return v;
  };
  std::string out;
  for (const Name& item : items) {
    if (!out.empty()) out += ',';
    for (const Token& token : item) {
      if (!token.text.empty()) {
        out += token.text;
        continue;
      }
      const std::vector<std::string_view>& v = token.numbers;
      if (v.size() == 1) {
        out += v[0];
        continue;
      }
      // Runs of consecutive values become ranges when expand_hostlist gives
      // the same digits back (a range keeps its first bound's padding).
      out += '[';
      for (std::size_t i = 0; i < v.size();) {
        std::size_t j = i;
        while (j + 1 < v.size() && value(v[j + 1]) == value(v[j]) + 1 &&
               (padded(v[i]) ? v[j + 1].size() == v[i].size() : !padded(v[j + 1])))
          ++j;
        if (i) out += ',';
        out += v[i];
        if (j > i) {
          out += '-';
          out += v[j];
        }
        i = j + 1;
      }
      out += ']';
    }
  }
  return out;
}

bool NamePattern::parse(std::string_view pattern, std::string& error) {
  text_ = std::string(pattern);
  alternatives_.clear();
  if (pattern.empty()) {
    error = "empty pattern";
    return false;
  }
  HostlistExpansion e = expand_hostlist(pattern, 100'000);
  if (!e.ok()) {
    error = e.error;
    return false;
  }
  alternatives_ = std::move(e.names);
  shapes_.clear();
  for (std::string& alt : alternatives_) {
    std::size_t wild = alt.find_first_of("*?");
    if (alt == "*")
      shapes_.push_back(Shape::any);
    else if (wild == std::string::npos)
      shapes_.push_back(Shape::literal);
    else if (wild == alt.size() - 1 && alt.back() == '*') {
      shapes_.push_back(Shape::prefix);
      alt.pop_back();
    } else {
      shapes_.push_back(Shape::glob);
    }
  }
  return true;
}

namespace {

bool glob(std::string_view p, std::string_view s) {
  // Iterative matcher with single-star backtracking: linear in practice.
  std::size_t pi = 0;
  std::size_t si = 0;
  std::size_t star = std::string_view::npos;
  std::size_t mark = 0;
  while (si < s.size()) {
    if (pi < p.size() && (p[pi] == '?' || p[pi] == s[si])) {
      ++pi;
      ++si;
    } else if (pi < p.size() && p[pi] == '*') {
      star = pi++;
      mark = si;
    } else if (star != std::string_view::npos) {
      pi = star + 1;
      si = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi] == '*') ++pi;
  return pi == p.size();
}

}  // namespace

bool NamePattern::matches(std::string_view name) const {
  for (std::size_t i = 0; i < alternatives_.size(); ++i) {
    const std::string& alt = alternatives_[i];
    switch (shapes_[i]) {
      case Shape::any: return true;
      case Shape::literal:
        if (name == alt) return true;
        break;
      case Shape::prefix:
        if (name.substr(0, alt.size()) == alt) return true;
        break;
      case Shape::glob:
        if (glob(alt, name)) return true;
        break;
    }
  }
  return false;
}

bool NamePattern::is_literal() const { return alternatives_.size() == 1 && shapes_[0] == Shape::literal; }

}  // namespace topoplan
