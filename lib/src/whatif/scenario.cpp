#include "topoplan/whatif/scenario.hpp"

#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"

namespace topoplan {

namespace {

// Finds what a scenario names; builds its lookup tables once.
class Resolver {
 public:
  explicit Resolver(const Topology& t) : t_(t), index_(t) {
    for (DomainId d = 1; d < t.domain_count(); ++d) locals_[std::string(t.str(t.domain(d).name))].push_back(d);
  }

  // A domain: hostname, path, the topology's name, or a unique local name.
  std::optional<DomainId> domain(const std::string& name, std::string* ambiguity) const {
    if (auto d = index_.find_domain(name)) return d;
    auto it = locals_.find(name);
    if (it == locals_.end()) return std::nullopt;
    if (it->second.size() == 1) return it->second.front();
    if (ambiguity)
      *ambiguity = fmt::format("'{}' names {} domains; give the path, e.g. '{}'", name, it->second.size(),
                               t_.domain_name(it->second.front()));
    return std::nullopt;
  }

  // A device: its full name, or DOMAIN/local with the domain named any way
  // domain() accepts (`r0003/nvsw4`).
  std::optional<DeviceId> device(const std::string& name) {
    if (auto d = index_.find_device(name)) return d;
    auto slash = name.rfind('/');
    if (slash == std::string::npos) return std::nullopt;
    auto owner = domain(name.substr(0, slash), nullptr);
    if (!owner) return std::nullopt;
    if (by_local_.empty())
      for (DeviceId id = 0; id < t_.device_count(); ++id)
        by_local_.emplace(std::make_pair(t_.device(id).domain, std::string(t_.str(t_.device(id).name))), id);
    auto it = by_local_.find({*owner, name.substr(slash + 1)});
    if (it == by_local_.end()) return std::nullopt;
    return it->second;
  }

  // Every name a scenario could use, for suggestions.
  const std::vector<std::string>& candidates() {
    if (candidates_.empty()) {
      for (DeviceId id = 0; id < t_.device_count(); ++id) candidates_.push_back(t_.device_name(id));
      for (DomainId d = 0; d < t_.domain_count(); ++d) candidates_.push_back(t_.domain_name(d));
      for (const auto& [local, domains] : locals_)
        if (domains.size() == 1) candidates_.push_back(local);
    }
    return candidates_;
  }

 private:
  const Topology& t_;
  TopologyIndex index_;
  std::map<std::string, std::vector<DomainId>> locals_;
  std::map<std::pair<DomainId, std::string>, DeviceId> by_local_;
  std::vector<std::string> candidates_;
};

std::string with_hint(std::string message, const std::string& hint) {
  return hint.empty() ? message : message + "; " + hint;
}

std::string accelerator_word(const Topology& t, std::uint64_t n) {
  bool lpu = !t.accelerators().empty() && t.device(t.accelerators()[0]).kind == DeviceKind::lpu;
  return fmt::format("{} {}{}", n, lpu ? "LPU" : "GPU", n == 1 ? "" : "s");
}

}  // namespace

std::vector<Target> resolve_targets(const Topology& t, const std::vector<std::string>& names,
                                    const std::string& option) {
  Resolver resolver(t);
  DiagnosticSink sink(20);
  const SourceLocation where{option, 0, 0};
  std::vector<Target> out;
  auto add = [&](Target target) {
    for (const Target& seen : out)
      if (seen.kind == target.kind && seen.id == target.id) return;
    out.push_back(target);
  };
  auto unknown = [&](const std::string& name, const std::string& what) {
    sink.error(where, with_hint(fmt::format("no {} named '{}' in {}", what, name, t.name()),
                                did_you_mean(name, resolver.candidates())));
  };
  std::size_t unknowns = 0;
  for (const std::string& argument : names) {
    HostlistExpansion expansion = expand_hostlist(argument, 1'000'000);
    if (!expansion.ok()) {
      sink.error(where, fmt::format("in '{}': {}", argument, expansion.error));
      continue;
    }
    for (const std::string& name : expansion.names) {
      if (auto dash = name.find("--"); dash != std::string::npos) {
        const std::string a = name.substr(0, dash), b = name.substr(dash + 2);
        auto da = resolver.device(a), db = resolver.device(b);
        if (!da || !db) {
          if (++unknowns <= 5) unknown(!da ? a : b, "device");
          continue;
        }
        std::vector<LinkId> links;
        std::vector<std::string> peers;
        for (LinkId l : t.links_of(*da)) {
          DeviceId other = t.link(l).other(*da);
          if (other == *db) links.push_back(l);
          peers.push_back(t.device_name(other));
        }
        if (links.empty()) {
          std::sort(peers.begin(), peers.end());
          peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
          sink.error(where, peers.empty() ? fmt::format("'{}' has no links", t.device_name(*da))
                                          : fmt::format("no link between '{}' and '{}'; '{}' links to {}",
                                                        t.device_name(*da), t.device_name(*db), t.device_name(*da),
                                                        compress_hostlist(peers)));
          continue;
        }
        for (LinkId l : links) add({TargetKind::link, l});
        continue;
      }
      if (auto d = resolver.device(name)) {
        add({TargetKind::device, *d});
        continue;
      }
      std::string ambiguity;
      if (auto d = resolver.domain(name, &ambiguity)) {
        add({TargetKind::domain, *d});
        continue;
      }
      if (!ambiguity.empty()) {
        sink.error(where, ambiguity);
        continue;
      }
      if (++unknowns <= 5) unknown(name, "device, link or domain");
    }
  }
  if (unknowns > 5) sink.error(where, fmt::format("{} more unknown names", unknowns - 5));
  sink.throw_if_any();
  if (out.empty()) throw InputError(where, "names nothing to change");
  return out;
}

LevelIndex resolve_level(const Topology& t, const std::string& name, const std::string& option) {
  if (auto level = t.find_level(name)) return *level;
  std::vector<std::string> levels;
  for (const Level& l : t.levels()) levels.push_back(l.name);
  throw InputError({option, 0, 0}, with_hint(fmt::format("'{}' is not a level of {}; its levels are {}", name, t.name(),
                                                         fmt::join(levels, ", ")),
                                             did_you_mean(name, levels)));
}

ScenarioMask scenario_mask(const Topology& t, const std::vector<Target>& targets, DeviceState state) {
  ScenarioMask mask(t);
  for (const Target& target : targets) {
    switch (target.kind) {
      case TargetKind::device: mask.set_device(target.id, worse(mask.device(target.id), state)); break;
      case TargetKind::link: mask.set_link(target.id, state); break;
      case TargetKind::domain: mask.set_domain(target.id, state); break;
    }
  }
  return mask;
}

DeviceState effective_state(const ScenarioMask& mask, DeviceId device) {
  const Topology& t = mask.topology();
  DeviceState s = mask.device(device);
  if (mask.domains().empty()) return s;
  for (DomainId d = t.device(device).domain; d != kNone; d = t.domain(d).parent) s = worse(s, mask.domain(d));
  return s;
}

std::vector<LinkId> masked_links(const ScenarioMask& mask) {
  const Topology& t = mask.topology();
  std::vector<DeviceId> devices;
  for (const auto& [device, state] : mask.devices())
    if (state != DeviceState::up) devices.push_back(device);
  for (const auto& [domain, state] : mask.domains()) {
    if (state == DeviceState::up) continue;
    // Devices of the domain and of every domain below it.
    for (DeviceId id = 0; id < t.device_count(); ++id)
      if (t.contains(domain, t.device(id).domain)) devices.push_back(id);
  }
  std::vector<LinkId> links;
  for (DeviceId d : devices)
    for (LinkId l : t.links_of(d)) links.push_back(l);
  for (const auto& [link, state] : mask.links())
    if (state != DeviceState::up) links.push_back(link);
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

std::string target_name(const Topology& t, const Target& target) {
  switch (target.kind) {
    case TargetKind::device: return t.device_name(target.id);
    case TargetKind::link: {
      const Link& l = t.link(target.id);
      return t.device_name(l.a) + "--" + t.device_name(l.b);
    }
    case TargetKind::domain: return t.domain_name(target.id);
  }
  return {};
}

std::string target_text(const Topology& t, const Target& target) {
  switch (target.kind) {
    case TargetKind::device: {
      const Device& d = t.device(target.id);
      return fmt::format("{} {}", kind_name(d.kind), t.device_name(target.id));
    }
    case TargetKind::link: {
      const Link& l = t.link(target.id);
      return fmt::format("{} link {}", t.link_type(l).name, target_name(t, target));
    }
    case TargetKind::domain: {
      const Domain& d = t.domain(target.id);
      return fmt::format("{} {} ({})", t.levels()[d.level].name, t.domain_name(target.id),
                         accelerator_word(t, d.accelerator_count()));
    }
  }
  return {};
}

}  // namespace topoplan
