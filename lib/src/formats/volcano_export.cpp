// export --to volcano: the topology as Volcano HyperNodes.
//
// Read in volcano-sh/apis @ 536f121f, pkg/apis/topology/v1alpha1/
// hypernode_types.go (summarised in shared/reference/schedulers.md 3.1):
// HyperNode is cluster-scoped; spec.tier (>= 0, lower = closer), spec.tierName
// (optional, what a job's highestTierName refers to), spec.members (at least
// one) of type Node or HyperNode, each with exactly one selector; exactMatch
// names must be DNS-1123 subdomains.
//
// Mapping: every domain above the hosts that holds at least one host is one
// HyperNode; tier 1 is the level just above the hosts, increasing upwards, and
// the root is the top tier (so a job may span the whole cluster, as under the
// single spine HyperNode Volcano's UFM discovery makes). tierName is the level
// name. Members are the nodes by exact name (hostnames need not share a
// pattern, so regexMatch is not used) or the child HyperNodes, one member
// per line in flow style, which keeps 10,000-node clusters readable.
//
// Names: DNS-1123 labels (lower-case, at most 63 characters), from the domain
// path with '/' as '-' (the topology name for the root); a name already taken
// gets a hash of the path, then a counter. Names are handed out in domain id
// order, so the same topology always gets the same names.
#include <algorithm>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "io/kubernetes_names.hpp"

namespace topoplan::formats {

std::string export_volcano(const Topology& t, const ExportOptions& options) {
  if (!options.level.empty())
    throw InputError({"--level", 0, 0}, "--level is for the Slurm formats; every level becomes a HyperNode tier");
  if (options.style == "kubectl")
    throw InputError({"--style", 0, 0}, "--style kubectl is for --to kueue; HyperNodes are objects to apply");
  const LevelIndex host_level = t.host_level();
  if (host_level == 0)
    throw InputError({t.name(), 0, 0}, "a topology of one level has no domain above its node to make a HyperNode of");
  check_node_names(t, "a HyperNode");

  // Hosts below each domain, so that domains without any are left out (a
  // HyperNode needs a member).
  std::vector<std::uint32_t> hosts(t.domain_count(), 0);
  for (LevelIndex l = host_level + 1; l-- > 0;) {
    auto [first, last] = t.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      if (l == host_level) hosts[d] = 1;
      if (d != t.root()) hosts[t.domain(d).parent] += hosts[d];
    }
  }
  std::vector<std::string> name(t.domain_count());
  UniqueNames names;
  auto [hosts_first, hosts_last] = t.domains_at(host_level);
  for (DomainId d = 0; d < hosts_first; ++d) {
    if (hosts[d] == 0) continue;
    std::string path = d == t.root() ? t.name() : t.domain_path(d);
    std::string wanted = path;
    std::replace(wanted.begin(), wanted.end(), '/', '-');
    name[d] = names.claim(to_dns1123_label(wanted), path);
  }

  std::string out = fmt::format(
      "# Volcano HyperNodes for {}, written by topoplan export --to volcano.\n"
      "# Tiers: {}.\n"
      "# Apply with kubectl apply -f FILE; delete with kubectl delete hypernodes -l topoplan.io/topology={}.\n",
      t.name(), [&] {
        std::vector<std::string> tiers;
        for (LevelIndex l = host_level; l-- > 0;) tiers.push_back(fmt::format("{} = {}", host_level - l, t.levels()[l].name));
        return fmt::format("{}", fmt::join(tiers, ", "));
      }(),
      to_label_value(t.name()));
  bool first_object = true;
  for (LevelIndex l = host_level; l-- > 0;) {
    auto [first, last] = t.domains_at(l);
    for (DomainId d = first; d < last; ++d) {
      if (hosts[d] == 0) continue;
      if (!first_object) out += "---\n";
      first_object = false;
      out += fmt::format(
          "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: \"{}\"\n  labels:\n"
          "    topoplan.io/topology: \"{}\"\nspec:\n  tier: {}\n  tierName: \"{}\"\n  members:\n",
          name[d], to_label_value(t.name()), host_level - l, t.levels()[l].name);
      const Domain& dom = t.domain(d);
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        DomainId child = dom.first_child + c;
        if (hosts[child] == 0) continue;
        bool node = l + 1 == host_level;
        out += fmt::format("  - {{type: {}, selector: {{exactMatch: {{name: \"{}\"}}}}}}\n",
                           node ? "Node" : "HyperNode", node ? t.hostname(child) : std::string_view(name[child]));
      }
    }
  }
  return out;
}

}  // namespace topoplan::formats
