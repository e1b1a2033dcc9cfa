#include "topoplan/model/topology.hpp"

#include <algorithm>
#include <array>

namespace topoplan {

namespace {

constexpr std::array<std::string_view, kDeviceKindCount> kKindNames = {
    "gpu", "lpu", "cpu", "nic", "pcie-switch", "nvswitch", "switch"};

}  // namespace

std::string_view kind_name(DeviceKind kind) { return kKindNames[static_cast<std::size_t>(kind)]; }

std::optional<DeviceKind> parse_device_kind(std::string_view text) {
  for (std::size_t i = 0; i < kKindNames.size(); ++i)
    if (kKindNames[i] == text) return static_cast<DeviceKind>(i);
  return std::nullopt;
}

std::vector<std::string> device_kind_names() { return {kKindNames.begin(), kKindNames.end()}; }

const SpeedClass* Topology::speed_class(std::string_view name) const {
  auto it = std::lower_bound(speed_classes_.begin(), speed_classes_.end(), name,
                             [](const SpeedClass& c, std::string_view n) { return c.name < n; });
  return it != speed_classes_.end() && it->name == name ? &*it : nullptr;
}

bool is_accelerator(DeviceKind kind) { return kind == DeviceKind::gpu || kind == DeviceKind::lpu; }

bool is_switch(DeviceKind kind) {
  return kind == DeviceKind::nvswitch || kind == DeviceKind::network_switch ||
         kind == DeviceKind::pcie_switch;
}

std::string_view state_name(DeviceState state) {
  switch (state) {
    case DeviceState::up: return "up";
    case DeviceState::down: return "down";
    case DeviceState::drain: return "drain";
  }
  return "?";
}

std::optional<DeviceState> parse_device_state(std::string_view text) {
  if (text == "up") return DeviceState::up;
  if (text == "down") return DeviceState::down;
  if (text == "drain") return DeviceState::drain;
  return std::nullopt;
}

std::optional<LevelIndex> Topology::find_level(std::string_view name) const {
  for (std::size_t i = 0; i < levels_.size(); ++i)
    if (levels_[i].name == name) return static_cast<LevelIndex>(i);
  return std::nullopt;
}

std::span<const LinkId> Topology::links_of(DeviceId device) const {
  return std::span<const LinkId>(adjacency_).subspan(adjacency_begin_[device],
                                                    adjacency_begin_[device + 1] - adjacency_begin_[device]);
}

DomainId Topology::ancestor(DomainId domain, LevelIndex level) const {
  while (domains_[domain].level > level) domain = domains_[domain].parent;
  return domain;
}

bool Topology::contains(DomainId outer, DomainId inner) const {
  if (domains_[inner].level < domains_[outer].level) return false;
  return ancestor(inner, domains_[outer].level) == outer;
}

std::pair<DomainId, DomainId> Topology::descendants_at(DomainId domain, LevelIndex level) const {
  const LevelIndex own = domains_[domain].level;
  if (level < own) return {domain, domain};
  if (level == own) return {domain, domain + 1};
  // Depth-first ids: the descendants are the run whose ancestor at the
  // domain's level is the domain itself.
  DomainId lo = level_begin_[level];
  DomainId hi = level_begin_[level + 1];
  DomainId first = lo;
  DomainId count = hi - lo;
  while (count > 0) {
    DomainId step = count / 2;
    if (ancestor(first + step, own) < domain) {
      first += step + 1;
      count -= step + 1;
    } else {
      count = step;
    }
  }
  DomainId last = first;
  count = hi - first;
  while (count > 0) {
    DomainId step = count / 2;
    if (ancestor(last + step, own) <= domain) {
      last += step + 1;
      count -= step + 1;
    } else {
      count = step;
    }
  }
  return {first, last};
}

std::string Topology::domain_path(DomainId domain) const {
  std::vector<DomainId> chain;
  for (DomainId d = domain; d != root(); d = domains_[d].parent) chain.push_back(d);
  std::string path;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (!path.empty()) path += '/';
    path += strings_[domains_[*it].name];
  }
  return path;
}

std::string Topology::domain_name(DomainId domain) const {
  if (domain == root()) return name_;
  if (domains_[domain].level == host_level()) return std::string(hostname(domain));
  return domain_path(domain);
}

std::string Topology::device_name(DeviceId device) const {
  const Device& d = devices_[device];
  std::string_view local = strings_[d.name];
  if (d.domain == root()) return std::string(local);
  std::string prefix = domains_[d.domain].level == host_level() ? std::string(hostname(d.domain))
                                                                : domain_path(d.domain);
  prefix += '/';
  prefix += local;
  return prefix;
}

TopologyIndex::TopologyIndex(const Topology& topology) : topology_(&topology) {
  // Devices by owning domain (a counting sort), each domain's by local name:
  // a full name is looked up as its domain, then its last segment. (A table
  // of every full name, built and sorted, was a third of reading a plan of
  // 131,040 GPUs.)
  device_begin_.assign(topology.domain_count() + 1, 0);
  for (const Device& d : topology.devices()) ++device_begin_[d.domain + 1];
  for (std::size_t i = 1; i < device_begin_.size(); ++i) device_begin_[i] += device_begin_[i - 1];
  devices_.resize(topology.device_count());
  {
    std::vector<std::uint32_t> fill(device_begin_.begin(), device_begin_.end() - 1);
    for (DeviceId id = 0; id < topology.device_count(); ++id) devices_[fill[topology.device(id).domain]++] = id;
  }
  for (std::size_t d = 0; d + 1 < device_begin_.size(); ++d)
    std::sort(devices_.begin() + device_begin_[d], devices_.begin() + device_begin_[d + 1], [&](DeviceId x, DeviceId y) {
      const std::string_view a = topology.str(topology.device(x).name);
      const std::string_view b = topology.str(topology.device(y).name);
      return a != b ? a < b : x < y;
    });
  // The first domain (by id) to claim a name keeps it, as a sorted table's
  // first match did.
  domains_.reserve(topology.domain_count() * 2);
  owners_.reserve(topology.domain_count());
  domains_.emplace(topology.name(), topology.root());
  for (DomainId id = 1; id < topology.domain_count(); ++id) {
    std::string path = topology.domain_path(id);
    domains_.emplace(path, id);
    if (topology.domain(id).level == topology.host_level()) {
      domains_.emplace(std::string(topology.hostname(id)), id);
      owners_.emplace(std::string(topology.hostname(id)), id);  // a node's devices go by its hostname
    } else {
      owners_.emplace(std::move(path), id);
    }
  }
}

std::optional<DeviceId> TopologyIndex::find_device(std::string_view name) const {
  const Topology& t = *topology_;
  const std::size_t slash = name.rfind('/');
  DomainId domain = t.root();
  std::string_view local = name;
  if (slash != std::string_view::npos) {
    const std::string_view prefix = name.substr(0, slash);
    local = name.substr(slash + 1);
    auto found = owners_.find(prefix);
    if (found == owners_.end()) return std::nullopt;
    domain = found->second;
  }
  auto first = devices_.begin() + device_begin_[domain];
  auto last = devices_.begin() + device_begin_[domain + 1];
  auto it = std::lower_bound(first, last, local,
                             [&](DeviceId id, std::string_view key) { return t.str(t.device(id).name) < key; });
  if (it == last || t.str(t.device(*it).name) != local) return std::nullopt;
  return *it;
}

std::optional<DomainId> TopologyIndex::find_domain(std::string_view name) const {
  auto it = domains_.find(name);
  if (it == domains_.end()) return std::nullopt;
  return it->second;
}

}  // namespace topoplan
