#include "topoplan/io/hostlist.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <tuple>

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
  // Every name as tokens in one arena: literal text, or a number whose
  // values (digits) grow as equal neighbours merge into it. Views point into
  // `names`, which outlive this call; a number's first value sits inline, so
  // only merging allocates.
  struct Token {
    std::string_view text;               // literal text; empty for a number
    std::string_view first;              // a number's first value
    std::vector<std::string_view> rest;  // and the values merged into it
    bool same_numbers(const Token& o) const { return first == o.first && rest == o.rest; }
  };
  struct Item {
    std::uint32_t begin, size;  // tokens in the arena
  };
  std::vector<Token> arena;
  std::vector<Item> items;
  items.reserve(names.size());
  arena.reserve(names.size() * 6);
  std::size_t max_numbers = 0;
  for (const std::string& full : names) {
    const std::string_view name = full;
    const auto begin = static_cast<std::uint32_t>(arena.size());
    // Names that already hold list syntax stay as they are.
    if (name.find_first_of("[],") != std::string_view::npos) {
      arena.push_back({name, {}, {}});
      items.push_back({begin, 1});
      continue;
    }
    std::size_t numbers = 0;
    for (std::size_t i = 0; i < name.size();) {
      std::size_t j = i;
      bool digit = name[i] >= '0' && name[i] <= '9';
      while (j < name.size() && (name[j] >= '0' && name[j] <= '9') == digit) ++j;
      std::uint64_t value = 0;
      if (digit && parse_number(name.substr(i, j - i), value)) {
        arena.push_back({{}, name.substr(i, j - i), {}});
        ++numbers;
      } else if (arena.size() > begin && !arena.back().text.empty()) {
        // Adjacent in the same name: extend the view.
        arena.back().text = std::string_view(arena.back().text.data(), arena.back().text.size() + (j - i));
      } else {
        arena.push_back({name.substr(i, j - i), {}, {}});
      }
      i = j;
    }
    max_numbers = std::max(max_numbers, numbers);
    items.push_back({begin, static_cast<std::uint32_t>(arena.size() - begin)});
  }
  // Equal except at token `k` (which must be a number in both).
  auto mergeable = [&](const Item& a, const Item& b, std::size_t k) {
    if (a.size != b.size || k >= a.size) return false;
    const Token* x = &arena[a.begin];
    const Token* y = &arena[b.begin];
    if (!x[k].text.empty() || !y[k].text.empty()) return false;
    for (std::size_t t = 0; t < a.size; ++t)
      if (t != k && (x[t].text != y[t].text || !x[t].same_numbers(y[t]))) return false;
    return true;
  };
  // From the last number to the first, neighbours that differ only there
  // merge into one item with a list of values.
  for (std::size_t n = max_numbers; n-- > 0;) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const Item item = items[i];
      // Token index of the n-th number of this item.
      std::size_t k = 0, seen = 0;
      for (; k < item.size; ++k)
        if (arena[item.begin + k].text.empty() && seen++ == n) break;
      if (kept > 0 && k < item.size && mergeable(items[kept - 1], item, k)) {
        Token& into = arena[items[kept - 1].begin + k];
        const Token& from = arena[item.begin + k];
        into.rest.push_back(from.first);
        into.rest.insert(into.rest.end(), from.rest.begin(), from.rest.end());
      } else {
        items[kept++] = item;
      }
    }
    items.resize(kept);
  }

  auto padded = [](std::string_view d) { return d.size() > 1 && d[0] == '0'; };
  auto value = [](std::string_view d) {
    std::uint64_t v = 0;
    parse_number(d, v);
    return v;
  };
  std::string out;
  std::vector<std::string_view> v;
  for (const Item& item : items) {
    if (!out.empty()) out += ',';
    for (std::uint32_t t = item.begin; t < item.begin + item.size; ++t) {
      const Token& token = arena[t];
      if (!token.text.empty()) {
        out += token.text;
        continue;
      }
      if (token.rest.empty()) {
        out += token.first;
        continue;
      }
      v.assign(1, token.first);
      v.insert(v.end(), token.rest.begin(), token.rest.end());
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
  build_index();
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

void NamePattern::build_index() {
  index_.clear();
  unkeyed_.clear();
  if (alternatives_.size() <= kScannedAlternatives) return;
  // Each alternative's literal runs with their anchors.
  struct Run {
    Anchor anchor;
    std::string_view text;
  };
  std::vector<std::vector<Run>> runs(alternatives_.size());
  for (std::size_t i = 0; i < alternatives_.size(); ++i) {
    const std::string_view alt = alternatives_[i];
    switch (shapes_[i]) {
      case Shape::any:
        break;
      case Shape::literal:  // the whole name
      case Shape::prefix:
        runs[i].push_back({Anchor::start, alt});
        break;
      case Shape::glob: {
        std::size_t begin = 0;
        while (begin <= alt.size()) {
          const std::size_t end = std::min(alt.find_first_of("*?", begin), alt.size());
          if (end > begin) {
            const Anchor anchor = begin == 0 ? Anchor::start : end == alt.size() ? Anchor::end : Anchor::inside;
            runs[i].push_back({anchor, alt.substr(begin, end - begin)});
          }
          begin = end + 1;
        }
        break;
      }
    }
  }
  std::map<std::pair<Anchor, std::string_view>, std::size_t> shared;
  for (const std::vector<Run>& of : runs)
    for (const Run& r : of) ++shared[{r.anchor, r.text}];
  // The key: the run fewest alternatives share; among equals an anchored
  // one (one look-up per name rather than one per position), then the longest.
  auto rank = [&](const Run& r) {
    return std::make_tuple(shared.at({r.anchor, r.text}), r.anchor == Anchor::inside, ~r.text.size());
  };
  index_.resize(3);
  for (std::size_t i = 0; i < alternatives_.size(); ++i) {
    if (runs[i].empty()) {
      unkeyed_.push_back(i);
      continue;
    }
    const Run* best = &runs[i].front();
    for (const Run& r : runs[i])
      if (rank(r) < rank(*best)) best = &r;
    index_[static_cast<std::size_t>(best->anchor)].keys.emplace_back(std::string(best->text), i);
  }
  for (KeyIndex& k : index_) {
    std::sort(k.keys.begin(), k.keys.end());
    for (const auto& [key, alternative] : k.keys) k.lengths.push_back(key.size());
    std::sort(k.lengths.begin(), k.lengths.end());
    k.lengths.erase(std::unique(k.lengths.begin(), k.lengths.end()), k.lengths.end());
  }
}

bool NamePattern::matches_alternative(std::size_t i, std::string_view name) const {
  const std::string& alt = alternatives_[i];
  switch (shapes_[i]) {
    case Shape::any: return true;
    case Shape::literal: return name == alt;
    case Shape::prefix: return name.substr(0, alt.size()) == alt;
    case Shape::glob: return glob(alt, name);
  }
  return false;
}

bool NamePattern::matches(std::string_view name) const {
  if (index_.empty()) {
    for (std::size_t i = 0; i < alternatives_.size(); ++i)
      if (matches_alternative(i, name)) return true;
    return false;
  }
  for (std::size_t i : unkeyed_)
    if (matches_alternative(i, name)) return true;
  // Only alternatives whose key is in the name where it must be can match.
  auto tried = [&](const KeyIndex& index, std::string_view key) {
    auto it =
        std::lower_bound(index.keys.begin(), index.keys.end(), key,
                         [](const std::pair<std::string, std::size_t>& a, std::string_view b) { return a.first < b; });
    for (; it != index.keys.end() && it->first == key; ++it)
      if (matches_alternative(it->second, name)) return true;
    return false;
  };
  for (std::size_t length : index_[static_cast<std::size_t>(Anchor::start)].lengths) {
    if (length > name.size()) break;
    if (tried(index_[static_cast<std::size_t>(Anchor::start)], name.substr(0, length))) return true;
  }
  for (std::size_t length : index_[static_cast<std::size_t>(Anchor::end)].lengths) {
    if (length > name.size()) break;
    if (tried(index_[static_cast<std::size_t>(Anchor::end)], name.substr(name.size() - length))) return true;
  }
  for (std::size_t length : index_[static_cast<std::size_t>(Anchor::inside)].lengths) {
    if (length > name.size()) break;
    for (std::size_t at = 0; at + length <= name.size(); ++at)
      if (tried(index_[static_cast<std::size_t>(Anchor::inside)], name.substr(at, length))) return true;
  }
  return false;
}

bool NamePattern::is_literal() const { return alternatives_.size() == 1 && shapes_[0] == Shape::literal; }

}  // namespace topoplan
