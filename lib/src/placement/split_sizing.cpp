#include "split_sizing.hpp"

#include <algorithm>

namespace topoplan {

namespace {

// `units` over the `k` largest of `children` ((aligned capacity, child)
// sorted largest first), equal shares in multiples of `unit`; empty when
// they cannot hold it.
Split balance(const std::vector<std::pair<std::uint32_t, DomainId>>& all, std::size_t k, std::uint32_t units,
              std::uint32_t unit) {
  if (k > all.size()) return {};
  thread_local std::vector<std::pair<std::uint32_t, DomainId>> children;  // reused: no allocation per split
  children.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k));
  std::uint32_t sum = 0;
  for (const auto& c : children) sum += c.first;
  if (sum < units) return {};
  // Smallest capacity first: each takes an equal share of what is left, so
  // a child too small for its share leaves the rest to the larger ones.
  std::sort(children.begin(), children.end(), [](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : x.second < y.second;
  });
  Split split;
  split.reserve(k);
  std::uint32_t remaining = units;
  for (std::size_t i = 0; i < k && remaining > 0; ++i) {
    auto left = static_cast<std::uint32_t>(k - i);
    std::uint32_t share = (remaining + left - 1) / left;
    share = std::min(remaining, (share + unit - 1) / unit * unit);
    std::uint32_t amount = std::min(children[i].first, share);
    if (amount > 0) split.push_back({children[i].second, amount});
    remaining -= amount;
  }
  if (remaining > 0) return {};
  std::sort(split.begin(), split.end(), [](const SplitShare& a, const SplitShare& b) { return a.child < b.child; });
  return split;
}

bool same(const Split& a, const Split& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](const SplitShare& x, const SplitShare& y) {
           return x.child == y.child && x.units == y.units;
         });
}

}  // namespace

std::vector<Split> balanced_splits(const CapacityView& view, DomainId domain, std::uint32_t units,
                                   const std::vector<std::uint32_t>& alignments, bool one_more) {
  const Topology& t = view.topology();
  const Domain& d = t.domain(domain);
  std::vector<Split> out;
  if (d.level == t.host_level() || units == 0) return out;
  for (std::uint32_t alignment : alignments) {
    const std::uint32_t unit = std::max(1u, alignment);
    thread_local std::vector<std::pair<std::uint32_t, DomainId>> children;  // (aligned usable, child), reused
    children.clear();
    for (std::uint32_t c = 0; c < d.child_count; ++c) {
      std::uint32_t n = view.count(d.first_child + c);
      n -= n % unit;
      if (n > 0) children.emplace_back(n, d.first_child + c);
    }
    // Largest first, ties in hierarchy order (ids ascend as they were added):
    // a stable sort without stable_sort's buffer allocation.
    std::sort(children.begin(), children.end(), [](const auto& x, const auto& y) {
      return x.first != y.first ? x.first > y.first : x.second < y.second;
    });
    // The fewest children that hold it; one child holding it is not a split.
    std::uint32_t sum = 0;
    std::size_t fewest = 0;
    while (fewest < children.size() && sum < units) sum += children[fewest++].first;
    if (sum < units || fewest < 2) continue;
    for (std::size_t k : {fewest, fewest + 1}) {
      if (k > fewest && !one_more) break;
      Split split = balance(children, k, units, unit);
      if (split.empty()) continue;
      if (std::none_of(out.begin(), out.end(), [&](const Split& s) { return same(s, split); }))
        out.push_back(std::move(split));
    }
  }
  return out;
}

}  // namespace topoplan
