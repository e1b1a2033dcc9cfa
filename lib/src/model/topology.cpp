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

TopologyIndex::TopologyIndex(const Topology& topology) {
  devices_.reserve(topology.device_count());
  for (DeviceId id = 0; id < topology.device_count(); ++id)
    devices_.emplace_back(topology.device_name(id), id);
  std::sort(devices_.begin(), devices_.end());
  domains_.reserve(topology.domain_count() * 2);
  domains_.emplace_back(topology.name(), topology.root());
  for (DomainId id = 1; id < topology.domain_count(); ++id) {
    domains_.emplace_back(topology.domain_path(id), id);
    if (topology.domain(id).level == topology.host_level())
      domains_.emplace_back(std::string(topology.hostname(id)), id);
  }
  std::sort(domains_.begin(), domains_.end());
}

namespace {

template <typename Id>
std::optional<Id> lookup(const std::vector<std::pair<std::string, Id>>& table, std::string_view name) {
  auto it = std::lower_bound(table.begin(), table.end(), name,
                             [](const auto& entry, std::string_view key) { return entry.first < key; });
  if (it == table.end() || it->first != name) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<DeviceId> TopologyIndex::find_device(std::string_view name) const {
  return lookup(devices_, name);
}

std::optional<DomainId> TopologyIndex::find_domain(std::string_view name) const {
  return lookup(domains_, name);
}

}  // namespace topoplan
