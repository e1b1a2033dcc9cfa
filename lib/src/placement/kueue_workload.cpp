#include "topoplan/placement/kueue_workload.hpp"

#include <algorithm>
#include <charconv>

namespace topoplan {

namespace {

const std::string* label_value(const Labels& labels, std::string_view key) {
  auto it = std::lower_bound(labels.begin(), labels.end(), key,
                             [](const auto& kv, std::string_view k) { return kv.first < k; });
  return it != labels.end() && it->first == key ? &it->second : nullptr;
}

std::optional<long long> integer(std::string_view s) {
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// labels.Selector semantics of one requirement (k8s.io/apimachinery labels).
bool requirement_matches(const NodeSelectorRequirement& r, const std::string* value) {
  auto in = [&]() { return value && std::find(r.values.begin(), r.values.end(), *value) != r.values.end(); };
  if (r.op == "In") return in();
  if (r.op == "NotIn") return !in();
  if (r.op == "Exists") return value != nullptr;
  if (r.op == "DoesNotExist") return value == nullptr;
  if (r.op == "Gt" || r.op == "Lt") {
    if (!value || r.values.size() != 1) return false;
    auto have = integer(*value);
    auto want = integer(r.values.front());
    if (!have || !want) return false;
    return r.op == "Gt" ? *have > *want : *have < *want;
  }
  return false;
}

}  // namespace

bool term_matches(const NodeSelectorTerm& term, const Labels& labels, std::string_view name) {
  // An empty term selects nothing (nodeaffinity.NewNodeSelector).
  if (term.expressions.empty() && term.fields.empty()) return false;
  for (const NodeSelectorRequirement& r : term.expressions)
    if (!requirement_matches(r, label_value(labels, r.key))) return false;
  const std::string node_name(name);
  for (const NodeSelectorRequirement& r : term.fields) {
    if (r.key != "metadata.name") return false;
    if (!requirement_matches(r, &node_name)) return false;
  }
  return true;
}

bool tolerates(const std::vector<Toleration>& tolerations, const Taint& taint) {
  for (const Toleration& t : tolerations) {
    if (!t.effect.empty() && t.effect != taint.effect) continue;
    if (!t.key.empty() && t.key != taint.key) continue;
    if (t.op == "Exists") return true;
    if ((t.op == "Equal" || t.op.empty()) && t.value == taint.value) return true;
  }
  return false;
}

std::vector<KueueLevel> default_kueue_levels(const Topology& t) {
  std::vector<KueueLevel> out;
  for (LevelIndex l = 1; l < t.host_level(); ++l) {
    auto [first, last] = t.domains_at(l);
    // A label key that names every domain of the level by its own name.
    std::string key;
    if (first < last) {
      const Labels& labels = t.labels(t.domain(first).labels);
      for (const auto& [k, v] : labels) {
        bool all = true;
        for (DomainId d = first; d < last && all; ++d) {
          const std::string* value = label_value(t.labels(t.domain(d).labels), k);
          all = value && *value == t.str(t.domain(d).name);
        }
        if (all) {
          key = k;
          break;
        }
      }
    }
    out.push_back({key.empty() ? t.levels()[l].name : key, l});
  }
  out.push_back({kueue::kHostnameLabel, t.host_level()});
  return out;
}

}  // namespace topoplan
