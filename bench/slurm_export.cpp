// A minimal Slurm export for bench/slurm_agreement.sh (not `topoplan export`).
//
//   topoplan_slurm_export TOPO DIR
//
// Writes into DIR:
//   nodes.conf     one `NodeName=HOST CPUs=1 State=CLOUD` line per node that
//                  has accelerators, in our node order (= Slurm's bitmap order)
//   topology.conf  one SwitchName per domain above the host level, in domain
//                  id order (the root first, which Slurm 22.05 needs: it
//                  leaves the root's parent at index 0), `Switches=` with the
//                  children's names, `Nodes=` on the leaf switches
//   leaves.txt     `HOST LEAF-SWITCH` per node, for the leaf-set comparison
// Switch names are domain paths with '/' replaced by '.' ("root" for the
// root), which Slurm's hostlist parser takes as plain names.
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "topoplan/io/topology_source.hpp"

namespace {

std::string switch_name(const topoplan::Topology& t, topoplan::DomainId d) {
  if (d == t.root()) return "root";
  std::string path = t.domain_path(d);
  for (char& c : path)
    if (c == '/') c = '.';
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace topoplan;
  if (argc != 3) {
    std::fprintf(stderr, "usage: topoplan_slurm_export TOPO DIR\n");
    return 2;
  }
  auto no_files = [](const std::string&) { return std::optional<std::string>(); };
  try {
    Topology t = load_topology(argv[1], no_files);
    const std::string dir = argv[2];
    const LevelIndex host = t.host_level();
    if (host == 0) {
      std::fprintf(stderr, "topoplan_slurm_export: %s has no level above its nodes\n", argv[1]);
      return 2;
    }
    std::ofstream nodes(dir + "/nodes.conf");
    std::ofstream topo(dir + "/topology.conf");
    std::ofstream leaves(dir + "/leaves.txt");
    auto [first_node, last_node] = t.domains_at(host);
    for (DomainId n = first_node; n < last_node; ++n) {
      if (t.domain(n).accelerator_count() == 0) continue;
      nodes << fmt::format("NodeName={} CPUs=1 State=CLOUD\n", t.hostname(n));
      leaves << fmt::format("{} {}\n", t.hostname(n), switch_name(t, t.domain(n).parent));
    }
    for (DomainId d = 0; d < first_node; ++d) {
      const Domain& dom = t.domain(d);
      std::vector<std::string> children;
      for (std::uint32_t c = 0; c < dom.child_count; ++c) {
        DomainId child = dom.first_child + c;
        if (dom.level + 1 == host) {
          if (t.domain(child).accelerator_count() > 0) children.emplace_back(t.hostname(child));
        } else {
          children.push_back(switch_name(t, child));
        }
      }
      if (children.empty()) continue;
      topo << fmt::format("SwitchName={} {}={}\n", switch_name(t, d), dom.level + 1 == host ? "Nodes" : "Switches",
                          fmt::join(children, ","));
    }
  } catch (const InputError& e) {
    for (const Diagnostic& d : e.diagnostics()) std::fprintf(stderr, "topoplan_slurm_export: %s\n", d.str().c_str());
    return 2;
  }
  return 0;
}
