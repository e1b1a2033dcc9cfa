#include "topoplan/cost/rank_set.hpp"

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

namespace {

const SourceLocation kDevices{"--devices", 0, 0};
const SourceLocation kFirst{"--first", 0, 0};

// Names a user could have meant: accelerators, hostnames and domain paths.
std::vector<std::string> candidate_names(const Topology& t) {
  std::vector<std::string> names;
  for (DeviceId id : t.accelerators()) names.push_back(t.device_name(id));
  for (DomainId d = 1; d < t.domain_count(); ++d) names.push_back(t.domain_name(d));
  return names;
}

}  // namespace

std::vector<DeviceId> select_ranks(const Topology& t, const RankSelection& selection) {
  const auto accels = t.accelerators();
  if (selection.first && !selection.devices.empty())
    throw InputError(kDevices, "--devices and --first choose ranks in two ways; give one");
  if (selection.first) {
    const std::uint64_t n = *selection.first;
    if (n == 0) throw InputError(kFirst, "must be at least 1");
    if (n > accels.size())
      throw InputError(kFirst, fmt::format("{} ranks requested but {} has only {} accelerators", n, t.name(),
                                           accels.size()));
    return {accels.begin(), accels.begin() + static_cast<std::ptrdiff_t>(n)};
  }
  if (selection.devices.empty()) return {accels.begin(), accels.end()};

  HostlistExpansion names = expand_hostlist(selection.devices, 10 * accels.size() + 1000);
  if (!names.ok()) throw InputError(kDevices, names.error);
  TopologyIndex index(t);
  std::vector<DeviceId> ranks;
  std::vector<std::uint32_t> seen(accels.size(), kNone);  // name index that listed each accelerator
  auto add = [&](DeviceId dev, std::size_t item) {
    const std::uint32_t a = t.accelerator_index(dev);
    if (seen[a] != kNone) {
      const std::string& first = names.names[seen[a]];
      const std::string& again = names.names[item];
      throw InputError(kDevices, first == again
                                     ? fmt::format("'{}' is listed twice", again)
                                     : fmt::format("'{}' is listed twice (by '{}' and '{}')", t.device_name(dev),
                                                   first, again));
    }
    seen[a] = static_cast<std::uint32_t>(item);
    ranks.push_back(dev);
  };
  for (std::size_t i = 0; i < names.names.size(); ++i) {
    const std::string& name = names.names[i];
    if (auto dev = index.find_device(name)) {
      const Device& d = t.device(*dev);
      if (!is_accelerator(d.kind))
        throw InputError(kDevices, fmt::format("'{}' is a {}, not an accelerator", name, kind_name(d.kind)));
      add(*dev, i);
      continue;
    }
    if (auto domain = index.find_domain(name)) {
      const Domain& dom = t.domain(*domain);
      if (dom.accelerator_count() == 0)
        throw InputError(kDevices, fmt::format("'{}' has no accelerators", name));
      for (std::uint32_t k = dom.accel_begin; k < dom.accel_end; ++k) add(accels[k], i);
      continue;
    }
    std::string hint = did_you_mean(name, candidate_names(t));
    throw InputError(kDevices, fmt::format("no accelerator, host or domain named '{}' in {}{}", name, t.name(),
                                           hint.empty() ? "" : "; " + hint));
  }
  return ranks;
}

}  // namespace topoplan
