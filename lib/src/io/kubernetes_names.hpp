// Kubernetes' naming rules, as the API server enforces them
// (k8s.io/apimachinery/pkg/util/validation: IsQualifiedName, IsValidLabelValue,
// IsDNS1123Label, IsDNS1123Subdomain), and deterministic ways to turn
// topoplan's names into valid ones. Shared by the k8s-nodes importer, the
// Kueue and Volcano exporters and the manifest readers (Grove, LWS), so it
// sits in io, below both. Private to lib/.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "topoplan/model/topology.hpp"

namespace topoplan {

/// Lower-case alphanumerics and '-', alphanumeric at both ends, at most 63
/// characters: what Volcano HyperNode and Kueue object names are held to here.
bool is_dns1123_label(std::string_view text);
/// DNS-1123 labels joined by '.', at most 253 characters: node names.
bool is_dns1123_subdomain(std::string_view text);
/// Empty, or at most 63 of [A-Za-z0-9._-] with an alphanumeric at both ends.
bool is_label_value(std::string_view text);
/// Why `key` is not a valid label key (`[prefix/]name`), or "" when it is.
std::string label_key_problem(std::string_view key);

/// `text` as a label value: characters outside [A-Za-z0-9._-] become '-',
/// non-alphanumerics are trimmed from both ends, and text longer than 63
/// characters is cut and ends in a hash of the whole, so distinct long inputs
/// stay distinct. Empty text gives "x".
std::string to_label_value(std::string_view text);
/// `text` as a DNS-1123 label, likewise (lower-cased, '-' for the rest).
std::string to_dns1123_label(std::string_view text);

/// Throws InputError, naming every node whose hostname is not a valid
/// Kubernetes node name (a DNS-1123 subdomain), when exporting to `format`.
void check_node_names(const Topology& topology, std::string_view format);

/// Hands out names that are unique among those handed out before, in call
/// order, so the result is deterministic for a deterministic call order.
class UniqueNames {
 public:
  /// `wanted` (a label value or DNS-1123 label) when it is free; else
  /// `wanted` with a suffix made from a hash of `seed` (what identifies the
  /// thing, e.g. its path), else with a counter. The result stays within 63
  /// characters and keeps the form of `wanted`.
  std::string claim(const std::string& wanted, std::string_view seed);

 private:
  std::set<std::string> taken_;
};

}  // namespace topoplan
