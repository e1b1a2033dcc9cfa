#include "kubernetes_names.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>

#include "topoplan/support/error.hpp"

namespace topoplan {

namespace {

constexpr std::size_t kMaxLabel = 63;       // label values, DNS-1123 labels, label key names
constexpr std::size_t kMaxSubdomain = 253;  // DNS-1123 subdomains, label key prefixes

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool value_char(char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; }

// The name part of a label key and a label value share one rule
// (IsQualifiedName's name, IsValidLabelValue), except that a name may not be empty.
bool is_qualified_name_part(std::string_view text) {
  if (text.empty() || text.size() > kMaxLabel) return false;
  if (!alnum(text.front()) || !alnum(text.back())) return false;
  for (char c : text)
    if (!value_char(c)) return false;
  return true;
}

// FNV-1a, 64 bits: a stable hash (std::hash is not stable across builds), the
// same family Topograph uses to shorten long label values.
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string hash8(std::string_view text) { return fmt::format("{:08x}", fnv1a(text) & 0xffffffffu); }

std::string sanitise(std::string_view text, bool dns) {
  std::string out;
  for (char c : text) {
    char d = c;
    if (dns && d >= 'A' && d <= 'Z') d = static_cast<char>(d - 'A' + 'a');
    bool ok = dns ? lower_alnum(d) || d == '-' : value_char(d);
    if (!ok) d = '-';
    // Runs of replaced characters collapse into one '-'.
    if (d == '-' && !out.empty() && out.back() == '-' && !ok) continue;
    out += d;
  }
  auto keep = [&](char c) { return dns ? lower_alnum(c) : alnum(c); };
  std::size_t first = 0;
  while (first < out.size() && !keep(out[first])) ++first;
  std::size_t last = out.size();
  while (last > first && !keep(out[last - 1])) --last;
  out = out.substr(first, last - first);
  if (out.empty()) out = "x";
  if (out.size() > kMaxLabel) {
    // Cut, then mark with a hash of the whole input so that two long names
    // with a common beginning stay distinct.
    out.resize(kMaxLabel - 9);
    while (!out.empty() && !keep(out.back())) out.pop_back();
    out += "-" + hash8(text);
  }
  return out;
}

}  // namespace

bool is_dns1123_label(std::string_view text) {
  if (text.empty() || text.size() > kMaxLabel) return false;
  if (!lower_alnum(text.front()) || !lower_alnum(text.back())) return false;
  for (char c : text)
    if (!lower_alnum(c) && c != '-') return false;
  return true;
}

bool is_dns1123_subdomain(std::string_view text) {
  if (text.empty() || text.size() > kMaxSubdomain) return false;
  std::size_t start = 0;
  while (true) {
    std::size_t dot = text.find('.', start);
    std::string_view part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    // Each part is a DNS-1123 label, but the 63-character limit applies to the whole only.
    if (part.empty() || !lower_alnum(part.front()) || !lower_alnum(part.back())) return false;
    for (char c : part)
      if (!lower_alnum(c) && c != '-') return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

bool is_label_value(std::string_view text) { return text.empty() || is_qualified_name_part(text); }

std::string label_key_problem(std::string_view key) {
  if (key.empty()) return "a label key must not be empty";
  std::string_view name = key;
  if (std::size_t slash = key.find('/'); slash != std::string_view::npos) {
    std::string_view prefix = key.substr(0, slash);
    name = key.substr(slash + 1);
    if (!is_dns1123_subdomain(prefix))
      return fmt::format("the prefix '{}' must be a lower-case DNS subdomain (e.g. example.com)", prefix);
  }
  if (!is_qualified_name_part(name))
    return fmt::format("the name '{}' must be at most 63 letters, digits, '-', '_' or '.', starting and ending "
                       "with a letter or digit",
                       name);
  return "";
}

std::string to_label_value(std::string_view text) { return sanitise(text, false); }
std::string to_dns1123_label(std::string_view text) { return sanitise(text, true); }

void check_node_names(const Topology& topology, std::string_view format) {
  DiagnosticSink sink;
  auto [first, last] = topology.domains_at(topology.host_level());
  for (DomainId node = first; node < last; ++node) {
    std::string_view host = topology.hostname(node);
    if (!is_dns1123_subdomain(host))
      sink.error(topology.origin(topology.domain(node).origin),
                 fmt::format("hostname '{}' is not a Kubernetes node name (a lower-case DNS subdomain), so {} "
                             "cannot refer to it",
                             host, format));
  }
  sink.throw_if_any();
}

std::string UniqueNames::claim(const std::string& wanted, std::string_view seed) {
  auto fit = [&](const std::string& base, const std::string& suffix) {
    std::string head = base.substr(0, std::min(base.size(), kMaxLabel - suffix.size()));
    while (!head.empty() && !alnum(head.back())) head.pop_back();
    return head + suffix;
  };
  std::string name = wanted;
  if (taken_.count(name)) name = fit(wanted, "-" + hash8(seed));
  for (int n = 2; taken_.count(name); ++n) name = fit(wanted, fmt::format("-{}", n));
  taken_.insert(name);
  return name;
}

}  // namespace topoplan
