// The topology domains a workload lowered to Grove packs in (a Grove
// PodCliqueSet, or a Dynamo DynamoGraphDeployment, which Dynamo lowers to
// one): domain names (zone, block, rack, host...) resolve through the
// ClusterTopologyBinding (earlier Grove: ClusterTopology) the workload names,
// its levels' node labels and then LevelMap; without that object among the
// inputs, domain names are read as the topology's level names. Private to
// lib/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "level_map.hpp"
#include "manifest_readers.hpp"

namespace topoplan {

class GroveDomains {
 public:
  GroveDomains(const LevelMap& levels, const GroveTopologies& topologies) : levels_(levels), topologies_(topologies) {}

  /// Uses the binding named `name`; false when the inputs do not hold it
  /// (domains are then level names).
  bool select(const std::string& name);
  const GroveTopologies::Binding* binding() const { return binding_; }
  const std::string& name() const { return name_; }

  /// Where `domain` ranks, coarsest first: in the binding, or as a level of
  /// the topology (`host` is its host level); nullopt when it is neither.
  std::optional<std::size_t> rank(const std::string& domain) const;
  /// The topology level of `domain`. Without a binding, a domain that names
  /// no level is reported at `at`, telling the user to give `kind` (the
  /// object that maps domains to labels) among the inputs; with one, an
  /// unknown domain is nullopt (the caller refuses it as its webhook does),
  /// and a level label no rule maps is reported at the label.
  std::optional<LevelIndex> level_of(const std::string& domain, const SourceLocation& at, std::string_view kind,
                                     DiagnosticSink& sink) const;
  /// The binding's domains, coarsest first, space-separated.
  std::string domain_list() const;

 private:
  const LevelMap& levels_;
  const GroveTopologies& topologies_;
  const GroveTopologies::Binding* binding_ = nullptr;
  std::string name_;
};

}  // namespace topoplan
