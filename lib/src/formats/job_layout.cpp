#include "topoplan/formats/job_layout.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

namespace topoplan {

JobLayout layout_of(const Topology& t, const JobPlacement& p) {
  JobLayout layout;
  std::map<DomainId, std::uint32_t> count;
  bool first = true;
  for (std::size_t r = 0; r < p.replicas.size(); ++r) {
    std::set<DomainId> nodes;
    // The natural order is ascending accelerator indices: they follow the
    // nodes in topology order and each node's devices in its own order, and
    // a node's indices are contiguous, so ascending indices visit each node
    // in one run. Only a descent breaks the order.
    DeviceId previous = kNone;
    for (std::size_t rank = 0; rank < p.replicas[r].size(); ++rank) {
      DeviceId d = p.replicas[r][rank];
      DomainId node = t.device(d).domain;
      const DeviceKind kind = t.device(d).kind;
      if (first) layout.kind = kind;
      layout.mixed_kinds |= !first && kind != layout.kind;
      first = false;
      ++count[node];
      nodes.insert(node);
      if (previous != kNone && layout.rank_order.empty() &&
          t.accelerator_index(d) < t.accelerator_index(previous)) {
        std::string where = p.replicas.size() > 1 ? fmt::format(" of replica {}", r) : "";
        layout.rank_order = fmt::format("rank {}{} ({}) comes after {}", rank, where, t.device_name(d),
                                        t.device_name(previous));
      }
      previous = d;
    }
    layout.replica_nodes.emplace_back(nodes.begin(), nodes.end());
  }
  for (const auto& [node, n] : count) {
    NodeShare share;
    share.node = node;
    share.accelerators = n;
    share.whole = n == t.domain(node).accelerator_count();
    layout.nodes.push_back(share);
  }
  layout.whole_nodes = !layout.nodes.empty() &&
                       std::all_of(layout.nodes.begin(), layout.nodes.end(), [](const NodeShare& s) { return s.whole; });
  if (!layout.nodes.empty()) {
    std::uint32_t n = layout.nodes.front().accelerators;
    bool uniform = std::all_of(layout.nodes.begin(), layout.nodes.end(),
                               [n](const NodeShare& s) { return s.accelerators == n; });
    layout.per_node = uniform ? n : 0;
  }
  return layout;
}

std::string describe_nodes(const JobLayout& layout) {
  std::size_t n = layout.nodes.size();
  std::size_t whole = 0;
  for (const NodeShare& s : layout.nodes) whole += s.whole;
  const char* s = n == 1 ? "" : "s";
  if (whole == n) return fmt::format("{} whole node{}", n, s);
  if (whole == 0) return fmt::format("part of {} node{}", n, s);
  return fmt::format("{} nodes ({} whole)", n, whole);
}

std::vector<std::string> hostnames(const Topology& t, const std::vector<DomainId>& nodes) {
  std::vector<std::string> out;
  out.reserve(nodes.size());
  for (DomainId n : nodes) out.emplace_back(t.hostname(n));
  return out;
}

std::vector<std::string> hostnames(const Topology& t, const std::vector<NodeShare>& nodes) {
  std::vector<std::string> out;
  out.reserve(nodes.size());
  for (const NodeShare& s : nodes) out.emplace_back(t.hostname(s.node));
  return out;
}

}  // namespace topoplan
