#include "topoplan/placement/chain_path.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace topoplan {

std::string_view chain_shape_name(ChainShape shape) {
  switch (shape) {
    case ChainShape::none: return "none";
    case ChainShape::chain: return "chain";
    case ChainShape::ring: return "ring";
    case ChainShape::group: return "group";
  }
  return "none";
}

LinkId direct_link(const Topology& t, DeviceId a, DeviceId b, const ScenarioMask* mask) {
  LinkId best = kNone;
  for (LinkId id : t.links_of(a)) {
    const Link& l = t.link(id);
    if (l.other(a) != b || a == b) continue;
    if (mask ? mask->link_path(id) != DeviceState::up
             : (l.count == 0 || t.device(l.a).state == DeviceState::down || t.device(l.b).state == DeviceState::down))
      continue;
    if (best == kNone) {
      best = id;
      continue;
    }
    const Link& o = t.link(best);
    if (l.latency_us < o.latency_us || (l.latency_us == o.latency_us && l.total_bandwidth() > o.total_bandwidth()))
      best = id;
  }
  return best;
}

namespace {

bool same_latency(double a, double b) { return std::fabs(a - b) <= 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

}  // namespace

ChainPath measure_chain(const Topology& t, std::span<const DeviceId> devices, ChainShape shape,
                        const ScenarioMask* mask) {
  ChainPath out;
  auto hop = [&](DeviceId a, DeviceId b) {
    ChainHop h{a, b, direct_link(t, a, b, mask), t.device(a).domain != t.device(b).domain, 0};
    if (h.link != kNone) h.latency_us = static_cast<double>(t.link(h.link).latency_us);
    (h.global ? out.global_hops : out.local_hops) += 1;
    out.hops.push_back(h);
  };
  const std::size_t n = devices.size();
  if (shape == ChainShape::group) {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) hop(devices[i], devices[j]);
  } else {
    for (std::size_t i = 0; i + 1 < n; ++i) hop(devices[i], devices[i + 1]);
    // A ring of two is the one link both ways; of one, no hop at all.
    if (shape == ChainShape::ring && n > 2) hop(devices[n - 1], devices[0]);
  }
  for (std::size_t i = 0; i < out.hops.size(); ++i) {
    const ChainHop& h = out.hops[i];
    if (h.link == kNone) {
      if (out.connected) out.first_gap = i;
      out.connected = false;
      continue;
    }
    if (shape == ChainShape::group)
      out.latency_us = std::max(out.latency_us, h.latency_us);
    else
      out.latency_us += h.latency_us;
    if (!same_latency(h.latency_us, out.hops.front().latency_us)) out.uniform = false;
  }
  if (!out.connected) out.uniform = false;
  return out;
}

std::string chain_problem(const Topology& t, const ChainPath& path, ChainShape shape, bool deterministic) {
  const std::string_view what = shape == ChainShape::none ? std::string_view("chain") : chain_shape_name(shape);
  if (!path.connected) {
    const ChainHop& h = path.hops[path.first_gap];
    return fmt::format("its {} is broken: {} -> {} has no direct link that is up (recompile and re-place)", what,
                       t.device_name(h.from), t.device_name(h.to));
  }
  if (deterministic && !path.uniform) {
    double low = path.hops.front().latency_us, high = low;
    for (const ChainHop& h : path.hops) {
      low = std::min(low, h.latency_us);
      high = std::max(high, h.latency_us);
    }
    return fmt::format("its {} is not uniform (hops of {:.3g} to {:.3g} us) but the job is deterministic", what, low,
                       high);
  }
  return "";
}

}  // namespace topoplan
