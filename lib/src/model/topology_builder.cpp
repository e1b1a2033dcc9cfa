#include "topoplan/model/topology_builder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "topoplan/support/utf8.hpp"

namespace topoplan {

std::string name_problem(std::string_view s) {
  if (s.empty()) return "is empty";
  if (s.size() > 253) return "is longer than 253 characters";
  // Every writer emits UTF-8 and every reader refuses anything else, so a
  // name must be UTF-8 to survive a round trip (found by fuzzing Slurm's
  // topology.conf).
  if (first_invalid_utf8(s) != std::string_view::npos) return "is not UTF-8";
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f) return "contains a space or control character";
    if (c == '/' || c == '*' || c == '?' || c == '[' || c == ']' || c == ',' || c == '{' || c == '}' ||
        c == '"' || c == '\'' || c == '\\' || c == ':' || c == '=')
      return fmt::format("contains '{}'", c);
  }
  return {};
}

TopologyBuilder::TopologyBuilder(std::string name, std::vector<std::string> levels)
    : name_(std::move(name)), levels_(std::move(levels)) {
  strings_.emplace_back();
  string_ids_.emplace("", 0);
  labels_.emplace_back();
  node_resources_.emplace_back();
  origins_.emplace_back();
  PendingDomain root;
  root.name = intern(name_);
  domains_.push_back(std::move(root));
}

void TopologyBuilder::set_description(std::string description) { description_ = std::move(description); }

void TopologyBuilder::set_nccl_environment(NcclEnvironment environment) { nccl_environment_ = std::move(environment); }

void TopologyBuilder::set_parameters(std::vector<TopologyParameter> parameters) {
  parameters_ = std::move(parameters);
}

std::uint32_t TopologyBuilder::add_origin(SourceLocation where) {
  origins_.push_back(std::move(where));
  return static_cast<std::uint32_t>(origins_.size() - 1);
}

StringId TopologyBuilder::intern(std::string_view text) {
  if (auto it = string_ids_.find(text); it != string_ids_.end()) return it->second;
  auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(text);
  string_ids_.emplace(strings_.back(), id);
  return id;
}

DomainId TopologyBuilder::add_domain(DomainId parent, std::string_view local_name, std::uint32_t origin) {
  PendingDomain d;
  d.name = intern(local_name);
  d.parent = parent;
  d.level = domains_[parent].level + 1;
  d.origin = origin;
  auto id = static_cast<DomainId>(domains_.size());
  domains_[parent].children.push_back(id);
  domains_.push_back(std::move(d));
  return id;
}

void TopologyBuilder::set_hostname(DomainId node, std::string_view hostname) {
  domains_[node].hostname = intern(hostname);
}

void TopologyBuilder::set_domain_labels(DomainId domain, Labels labels) {
  if (labels.empty()) return;
  std::sort(labels.begin(), labels.end());
  labels_.push_back(std::move(labels));
  domains_[domain].labels = static_cast<std::uint32_t>(labels_.size() - 1);
}

void TopologyBuilder::mark_altered(DomainId domain) {
  if (altered_.size() <= domain) altered_.resize(domains_.size(), 0);
  altered_[domain] = 1;
}

void TopologyBuilder::set_node_resources(DomainId node, NodeResources resources) {
  // Taints keep their order: a scheduler reports the first it cannot tolerate.
  if (resources == NodeResources()) {
    domains_[node].resources = 0;
    return;
  }
  // Nodes of one kind share an entry; node lists come a pool at a time, so
  // looking back a few entries finds it without a quadratic search.
  if (domains_[node].resources != 0 && node_resources_[domains_[node].resources] == resources) return;
  auto first = node_resources_.end() - std::min<std::ptrdiff_t>(8, static_cast<std::ptrdiff_t>(node_resources_.size()) - 1);
  auto it = std::find(first, node_resources_.end(), resources);
  if (it == node_resources_.end()) {
    node_resources_.push_back(std::move(resources));
    it = node_resources_.end() - 1;
  }
  domains_[node].resources = static_cast<std::uint32_t>(it - node_resources_.begin());
}

DeviceId TopologyBuilder::add_device(DomainId owner, DeviceKind kind, std::string_view local_name,
                                     const DeviceProperties& properties, std::uint32_t origin) {
  Device d;
  d.kind = kind;
  d.state = properties.state;
  d.domain = owner;
  d.name = intern(local_name);
  d.model = intern(properties.model);
  d.memory_gib = properties.memory_gib;
  d.speed = properties.speed;
  d.origin = origin;
  auto id = static_cast<DeviceId>(devices_.size());
  devices_.push_back(d);
  if (!properties.labels.empty()) add_device_labels(id, properties.labels);
  return id;
}

void TopologyBuilder::set_device_state(DeviceId device, DeviceState state) { devices_[device].state = state; }
void TopologyBuilder::set_device_speed(DeviceId device, float speed) { devices_[device].speed = speed; }
void TopologyBuilder::set_device_memory(DeviceId device, float memory_gib) {
  devices_[device].memory_gib = memory_gib;
}

void TopologyBuilder::add_device_labels(DeviceId device, const Labels& labels) {
  Labels merged = labels_[devices_[device].labels];
  for (const auto& [key, value] : labels) {
    auto it = std::find_if(merged.begin(), merged.end(), [&k = key](const auto& kv) { return kv.first == k; });
    if (it != merged.end())
      it->second = value;
    else
      merged.emplace_back(key, value);
  }
  std::sort(merged.begin(), merged.end());
  labels_.push_back(std::move(merged));
  devices_[device].labels = static_cast<std::uint32_t>(labels_.size() - 1);
}

std::uint16_t TopologyBuilder::link_type_index(const LinkType& type) {
  for (std::size_t i = 0; i < link_types_.size(); ++i)
    if (link_types_[i].name == type.name) return static_cast<std::uint16_t>(i);
  link_types_.push_back(type);
  return static_cast<std::uint16_t>(link_types_.size() - 1);  // finish() rejects more than 65535
}

LinkId TopologyBuilder::add_link(DeviceId a, DeviceId b, const LinkType& type, int count, double bandwidth,
                                 double latency_us, std::uint32_t origin) {
  return add_link(a, b, link_type_index(type), count, bandwidth < 0 ? type.bandwidth : bandwidth,
                  latency_us < 0 ? type.latency_us : latency_us, origin);
}

LinkId TopologyBuilder::add_link(DeviceId a, DeviceId b, std::uint16_t type, int count, double bandwidth,
                                 double latency_us, std::uint32_t origin) {
  Link link;
  link.a = a;
  link.b = b;
  link.type = type;
  // An out-of-range count is stored as 0 and reported by finish().
  link.count = count < 1 || count > 65535 ? 0 : static_cast<std::uint16_t>(count);
  link.bandwidth = static_cast<float>(bandwidth < 0 ? link_types_[type].bandwidth : bandwidth);
  link.latency_us = static_cast<float>(latency_us < 0 ? link_types_[type].latency_us : latency_us);
  link.origin = origin;
  links_.push_back(link);
  return static_cast<LinkId>(links_.size() - 1);
}

void TopologyBuilder::repeat_links(std::size_t first, std::size_t last, std::uint32_t device_offset) {
  // No reserve: an exact one per call would reallocate every time.
  for (std::size_t i = first; i < last; ++i) {
    Link link = links_[i];
    link.a += device_offset;
    link.b += device_offset;
    links_.push_back(link);
  }
}

bool TopologyBuilder::same_local_names(DomainId a, DomainId b, std::size_t n) const {
  for (std::size_t k = 0; k < n; ++k)
    if (domains_[a + k].name != domains_[b + k].name) return false;
  return true;
}

Topology TopologyBuilder::finish(DiagnosticSink& sink) {
  const auto host_level = static_cast<LevelIndex>(levels_.size() - 1);
  auto where = [&](std::uint32_t origin) { return origins_[origin]; };

  if (levels_.empty()) sink.error({}, "a topology needs at least one level");
  for (std::size_t i = 0; i < levels_.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (levels_[i] == levels_[j]) sink.error({}, fmt::format("level '{}' is listed twice", levels_[i]));
  if (link_types_.size() > 65535) sink.error({}, "too many distinct link types");

  // Depth-first order of the domains, and per-domain checks.
  std::vector<std::uint32_t> preorder(domains_.size(), kNone);
  std::vector<DomainId> stack{0};
  std::uint32_t next = 0;
  while (!stack.empty()) {
    DomainId d = stack.back();
    stack.pop_back();
    preorder[d] = next++;
    const PendingDomain& pd = domains_[d];
    for (auto it = pd.children.rbegin(); it != pd.children.rend(); ++it) stack.push_back(*it);
  }
  std::vector<std::pair<StringId, DomainId>> seen;
  for (DomainId d = 0; d < domains_.size(); ++d) {
    const PendingDomain& pd = domains_[d];
    if (pd.level > host_level) {
      sink.error(where(pd.origin), fmt::format("'{}' would sit below the host level '{}'", strings_[pd.name],
                                               levels_.empty() ? "" : levels_.back()));
      continue;
    }
    if (pd.level == host_level && pd.hostname == 0)
      sink.error(where(pd.origin), fmt::format("node '{}' has no hostname", strings_[pd.name]));
    seen.clear();
    for (DomainId c : pd.children) seen.emplace_back(domains_[c].name, c);
    std::sort(seen.begin(), seen.end());
    for (std::size_t i = 1; i < seen.size(); ++i)
      if (seen[i].first == seen[i - 1].first && (i == 1 || seen[i - 2].first != seen[i].first))
        sink.error(where(domains_[seen[i].second].origin),
                   fmt::format("two domains named '{}' under '{}'", strings_[seen[i].first], strings_[pd.name]));
  }
  {
    std::vector<std::pair<StringId, DomainId>> hosts;
    for (DomainId d = 0; d < domains_.size(); ++d)
      if (domains_[d].level == host_level && domains_[d].hostname != 0) hosts.emplace_back(domains_[d].hostname, d);
    std::sort(hosts.begin(), hosts.end());
    for (std::size_t i = 1; i < hosts.size(); ++i)
      if (hosts[i].first == hosts[i - 1].first && (i == 1 || hosts[i - 2].first != hosts[i].first))
        sink.error(where(domains_[hosts[i].second].origin),
                   fmt::format("hostname '{}' is used by more than one node", strings_[hosts[i].first]));
  }
  {
    // Devices bucketed by domain (a counting sort, stable), then each
    // domain's few devices sorted by name: linear in the devices where one
    // sort of all of them was a fifth of loading 131,040 GPUs.
    std::vector<std::uint32_t> begin(domains_.size() + 1, 0);
    for (const Device& dev : devices_) ++begin[dev.domain + 1];
    for (std::size_t d = 1; d < begin.size(); ++d) begin[d] += begin[d - 1];
    std::vector<DeviceId> order(devices_.size());
    {
      std::vector<std::uint32_t> fill(begin.begin(), begin.end() - 1);
      for (DeviceId id = 0; id < devices_.size(); ++id) order[fill[devices_[id].domain]++] = id;
    }
    auto name_of = [&](DeviceId id) { return devices_[id].name; };
    for (std::size_t d = 0; d + 1 < begin.size(); ++d) {
      auto first = order.begin() + begin[d];
      auto last = order.begin() + begin[d + 1];
      std::stable_sort(first, last, [&](DeviceId x, DeviceId y) { return name_of(x) < name_of(y); });
      for (auto it = first + (first == last ? 0 : 1); it < last; ++it)
        if (name_of(*it) == name_of(*(it - 1)) && (it - 1 == first || name_of(*(it - 2)) != name_of(*it)))
          sink.error(where(devices_[*it].origin),
                     fmt::format("two devices named '{}' in the same domain", strings_[name_of(*it)]));
    }
  }
  for (const Device& dev : devices_) {
    if (is_accelerator(dev.kind) && domains_[dev.domain].level != host_level)
      sink.error(where(dev.origin),
                 fmt::format("{} '{}' must sit in a node (level '{}'), not at level '{}'", kind_name(dev.kind),
                             strings_[dev.name], levels_.back(), levels_[domains_[dev.domain].level]));
    if (!(dev.speed > 0) || !std::isfinite(dev.speed))
      sink.error(where(dev.origin), fmt::format("device '{}' has speed {}; it must be above 0",
                                                strings_[dev.name], dev.speed));
    if (dev.memory_gib < 0 || !std::isfinite(dev.memory_gib))
      sink.error(where(dev.origin), fmt::format("device '{}' has negative memory", strings_[dev.name]));
  }
  // Names every writer can write (an importer may meet anything); each
  // distinct string is checked once.
  {
    std::vector<std::int8_t> checked(strings_.size(), 0);  // 0 unknown, 1 fine, -1 reported
    auto check = [&](StringId id, std::uint32_t origin, std::string_view what) {
      if (checked[id] != 0) return;
      std::string problem = name_problem(strings_[id]);
      checked[id] = problem.empty() ? 1 : -1;
      if (!problem.empty()) sink.error(where(origin), fmt::format("{} '{}' {}", what, strings_[id], problem));
    };
    if (std::string problem = name_problem(name_); !problem.empty())
      sink.error({}, fmt::format("topology name '{}' {}", name_, problem));
    for (DomainId d = 1; d < domains_.size(); ++d) {
      check(domains_[d].name, domains_[d].origin, "domain name");
      if (domains_[d].hostname != 0) check(domains_[d].hostname, domains_[d].origin, "hostname");
    }
    for (const Device& dev : devices_) check(dev.name, dev.origin, "device name");
    // Every other text (models, labels, the description) must be UTF-8 too:
    // every writer emits it and every reader refuses anything else (found by
    // fuzzing the NCCL XML and nvidia-smi readers).
    auto utf8 = [&](std::string_view text, std::string_view what) {
      if (first_invalid_utf8(text) == std::string_view::npos) return;
      sink.error({}, fmt::format("{} '{}' is not UTF-8", what, repair_utf8(text)));
    };
    for (StringId id = 0; id < strings_.size(); ++id)
      if (checked[id] == 0) utf8(strings_[id], "text");
    utf8(description_, "description");
    for (const Labels& labels : labels_)
      for (const auto& [key, value] : labels) {
        utf8(key, "label");
        utf8(value, "label value");
      }
  }
  for (const Link& link : links_) {
    if (link.a == link.b)
      sink.error(where(link.origin), fmt::format("link from '{}' to itself", strings_[devices_[link.a].name]));
    if (link.count == 0) sink.error(where(link.origin), "link count must be between 1 and 65535");
    if (!(link.bandwidth > 0) || !std::isfinite(link.bandwidth))
      sink.error(where(link.origin), "link bandwidth must be above 0");
    if (link.latency_us < 0 || !std::isfinite(link.latency_us))
      sink.error(where(link.origin), "link latency must not be negative");
  }
  sink.throw_if_any();

  // Renumber domains by (level, depth-first position).
  // (A counting sort by level over the depth-first order.)
  std::vector<DomainId> order(domains_.size());
  {
    std::vector<DomainId> by_preorder(next);  // every domain hangs below the root
    for (DomainId d = 0; d < domains_.size(); ++d)
      if (preorder[d] != kNone) by_preorder[preorder[d]] = d;
    std::vector<std::uint32_t> fill(levels_.size() + 1, 0);
    for (const PendingDomain& pd : domains_) ++fill[std::min<std::size_t>(pd.level, levels_.size()) + 1];
    for (std::size_t l = 1; l < fill.size(); ++l) fill[l] += fill[l - 1];
    for (DomainId d : by_preorder) order[fill[std::min<std::size_t>(domains_[d].level, levels_.size())]++] = d;
  }
  std::vector<DomainId> renamed(domains_.size());
  for (DomainId i = 0; i < order.size(); ++i) renamed[order[i]] = i;

  Topology t;
  t.name_ = name_;
  t.description_ = description_;
  t.nccl_environment_ = nccl_environment_;
  t.parameters_ = parameters_;
  for (const std::string& level : levels_) t.levels_.push_back({level});
  t.domains_.resize(domains_.size());
  t.level_begin_.assign(levels_.size() + 1, static_cast<DomainId>(domains_.size()));
  for (DomainId i = static_cast<DomainId>(order.size()); i-- > 0;) t.level_begin_[domains_[order[i]].level] = i;
  for (std::size_t l = levels_.size(); l-- > 0;) t.level_begin_[l] = std::min(t.level_begin_[l], t.level_begin_[l + 1]);
  for (DomainId old = 0; old < domains_.size(); ++old) {
    const PendingDomain& pd = domains_[old];
    Domain& d = t.domains_[renamed[old]];
    d.name = pd.name;
    d.hostname = pd.hostname;
    d.parent = pd.parent == kNone ? kNone : renamed[pd.parent];
    d.level = pd.level;
    d.labels = pd.labels;
    d.origin = pd.origin;
    d.resources = pd.resources;
    d.child_count = static_cast<std::uint32_t>(pd.children.size());
    d.first_child = pd.children.empty() ? kNone : renamed[pd.children.front()];
  }

  t.devices_ = std::move(devices_);
  for (Device& dev : t.devices_) dev.domain = renamed[dev.domain];

  // Accelerators in hierarchy order; each domain's range follows from a
  // depth-first walk over the renumbered tree.
  std::vector<std::vector<DeviceId>> per_node;
  std::vector<std::uint32_t> node_slot(t.domains_.size(), kNone);
  for (DeviceId id = 0; id < t.devices_.size(); ++id) {
    const Device& dev = t.devices_[id];
    if (!is_accelerator(dev.kind)) continue;
    if (node_slot[dev.domain] == kNone) {
      node_slot[dev.domain] = static_cast<std::uint32_t>(per_node.size());
      per_node.emplace_back();
    }
    per_node[node_slot[dev.domain]].push_back(id);
  }
  t.accel_index_.assign(t.devices_.size(), kNone);
  std::vector<std::pair<DomainId, bool>> walk{{0, false}};
  while (!walk.empty()) {
    auto [d, done] = walk.back();
    walk.pop_back();
    Domain& dom = t.domains_[d];
    if (done) {
      dom.accel_end = static_cast<std::uint32_t>(t.accelerators_.size());
      continue;
    }
    dom.accel_begin = static_cast<std::uint32_t>(t.accelerators_.size());
    if (node_slot[d] != kNone)
      for (DeviceId id : per_node[node_slot[d]]) {
        t.accel_index_[id] = static_cast<std::uint32_t>(t.accelerators_.size());
        t.accelerators_.push_back(id);
      }
    walk.emplace_back(d, true);
    for (std::uint32_t c = dom.child_count; c-- > 0;) walk.emplace_back(dom.first_child + c, false);
  }

  t.links_ = std::move(links_);
  t.link_types_ = std::move(link_types_);
  t.adjacency_begin_.assign(t.devices_.size() + 1, 0);
  for (const Link& link : t.links_) {
    ++t.adjacency_begin_[link.a + 1];
    ++t.adjacency_begin_[link.b + 1];
  }
  for (std::size_t i = 1; i < t.adjacency_begin_.size(); ++i) t.adjacency_begin_[i] += t.adjacency_begin_[i - 1];
  t.adjacency_.resize(t.adjacency_begin_.back());
  std::vector<std::uint32_t> fill(t.adjacency_begin_.begin(), t.adjacency_begin_.end() - 1);
  for (LinkId id = 0; id < t.links_.size(); ++id) {
    t.adjacency_[fill[t.links_[id].a]++] = id;
    t.adjacency_[fill[t.links_[id].b]++] = id;
  }

  t.strings_ = std::move(strings_);
  t.labels_ = std::move(labels_);
  t.node_resources_ = std::move(node_resources_);
  if (!altered_.empty()) {
    altered_.resize(t.domains_.size(), 0);
    t.altered_ = std::move(altered_);
  }
  t.origins_ = std::move(origins_);
  return t;
}

}  // namespace topoplan
