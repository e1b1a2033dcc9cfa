#include "topoplan/placement/scenario_mask.hpp"

namespace topoplan {

DeviceState worse(DeviceState a, DeviceState b) {
  if (a == DeviceState::down || b == DeviceState::down) return DeviceState::down;
  if (a == DeviceState::drain || b == DeviceState::drain) return DeviceState::drain;
  return DeviceState::up;
}

void ScenarioMask::set_device(DeviceId device, DeviceState state) {
  if (state == topology_->device(device).state)
    devices_.erase(device);
  else
    devices_[device] = state;
}

void ScenarioMask::set_link(LinkId link, DeviceState state) {
  if (state == DeviceState::up)
    links_.erase(link);
  else
    links_[link] = state;
}

void ScenarioMask::set_domain(DomainId domain, DeviceState state) {
  if (state == DeviceState::up)
    domains_.erase(domain);
  else
    domains_[domain] = state;
}

DeviceState ScenarioMask::device(DeviceId device) const {
  auto it = devices_.find(device);
  return it != devices_.end() ? it->second : topology_->device(device).state;
}

DeviceState ScenarioMask::link(LinkId link) const {
  auto it = links_.find(link);
  return it != links_.end() ? it->second : DeviceState::up;
}

DeviceState ScenarioMask::domain(DomainId domain) const {
  auto it = domains_.find(domain);
  return it != domains_.end() ? it->second : DeviceState::up;
}

DeviceState ScenarioMask::accelerator(std::uint32_t accel) const {
  const DeviceId id = topology_->accelerators()[accel];
  DeviceState s = device(id);
  if (domains_.empty()) return s;
  for (DomainId d = topology_->device(id).domain; d != kNone; d = topology_->domain(d).parent) s = worse(s, domain(d));
  return s;
}

DeviceState ScenarioMask::link_path(LinkId link) const {
  const Link& l = topology_->link(link);
  return worse(this->link(link), worse(device(l.a), device(l.b)));
}

}  // namespace topoplan
