// How often the parts of a cluster fail: the input of `whatif --mtbf` and
// `simulate --mtbf` (format in topoplan-formats(5), FAILURE RATES).
//
//   source: "Llama 3 pre-training, 16,384 H100 over 54 days (Table 5)"
//   rates:
//     - {component: gpu, per_day: 3.03e-4, repair_hours: 24}
//     - {component: node, per_day: 2.9e-4}
//     - {component: link, type: "ib-*", mtbf_hours: 600000}
//     - {component: rack, per_day: 1e-5}          # a level: the whole domain fails
//
// A component is a device kind (gpu, lpu, cpu, nic, pcie-switch, nvswitch,
// switch), `link`, or the name of a level of the topology (node, rack, su, ...),
// for which the whole domain fails at once (rack power, a top-of-rack switch
// taking its rack down). `model` (a glob) narrows devices, `type` (a glob on
// the link type) narrows links. Rates add up where several entries match.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "topoplan/model/topology.hpp"
#include "topoplan/support/error.hpp"

namespace topoplan {

enum class ComponentClass : std::uint8_t { device, link, domain };

struct FailureRate {
  ComponentClass what = ComponentClass::device;
  DeviceKind device_kind = DeviceKind::gpu;  // devices
  LevelIndex level = 0;                      // domains
  std::string pattern;                       // model glob (devices) or link type glob (links); "" = any
  double per_day = 0;                        // failures per component per day
  double repair_hours = 0;                   // time until it is back (0: at once)
  SourceLocation where;
};

struct FailureRates {
  std::string source;  // where the numbers come from, as the file says
  std::vector<FailureRate> rates;
};

/// One failing component of a topology and its total rate.
struct ComponentRate {
  ComponentClass what = ComponentClass::device;
  std::uint32_t id = 0;  // DeviceId, LinkId or DomainId
  double per_day = 0;
  double repair_hours = 0;  // of the entry with the highest rate among those that match
};

/// Reads a failure-rate file against a topology (levels are resolved by name).
/// Throws InputError with every problem: unknown keys or components (with a
/// suggestion), negative, infinite or missing rates, both per_day and
/// mtbf_hours, a bad glob.
FailureRates parse_failure_rates(std::string_view text, const std::string& file, const Topology& topology);

/// Every component of the topology with a rate above zero, devices, then
/// links, then domains, each in id order.
std::vector<ComponentRate> component_rates(const Topology& topology, const FailureRates& rates);

}  // namespace topoplan
