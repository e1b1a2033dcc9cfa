#include "topoplan/io/failure_rates.hpp"

#include <cmath>

#include <fmt/format.h>

#include "topoplan/io/hostlist.hpp"
#include "yaml_support.hpp"

namespace topoplan {

namespace {

constexpr double kHoursPerDay = 24;

}  // namespace

FailureRates parse_failure_rates(std::string_view text, const std::string& file, const Topology& t) {
  DiagnosticSink sink(20);
  FailureRates out;
  yaml::Node root = yaml::parse(text, file);
  yaml::MapReader top(root, file, sink, "a failure-rate file");
  top.allow({"source", "rates"});
  if (top.ok()) {
    if (auto s = top.string("source")) out.source = *s;
    yaml::Node list = top.get("rates");
    if (!list.IsDefined()) {
      sink.error(top.where(), "a failure-rate file needs 'rates', a list of {component, per_day or mtbf_hours}");
    } else if (!list.IsSequence()) {
      sink.error(yaml::where(file, list), "'rates' must be a list of {component, per_day or mtbf_hours}");
    } else {
      std::vector<std::string> components;
      for (std::string_view k : device_kind_names()) components.emplace_back(k);
      components.emplace_back("link");
      for (const Level& l : t.levels()) components.push_back(l.name);
      for (const yaml::Node& entry : list) {
        yaml::MapReader m(entry, file, sink, "a failure rate");
        m.allow({"component", "model", "type", "per_day", "mtbf_hours", "repair_hours"});
        if (!m.ok()) continue;
        FailureRate r;
        r.where = m.where();
        std::optional<std::string> component = m.string("component", true);
        if (!component) continue;
        if (*component == "link") {
          r.what = ComponentClass::link;
        } else if (auto kind = parse_device_kind(*component)) {
          r.what = ComponentClass::device;
          r.device_kind = *kind;
        } else if (auto level = t.find_level(*component)) {
          r.what = ComponentClass::domain;
          r.level = *level;
        } else {
          std::string hint = did_you_mean(*component, components);
          sink.error(m.where("component"),
                     fmt::format("unknown component '{}'; components are device kinds, link, or a level of '{}' "
                                 "({}){}{}",
                                 *component, t.name(), fmt::join(components, ", "), hint.empty() ? "" : "; ", hint));
          continue;
        }
        const char* pattern_key = r.what == ComponentClass::link ? "type" : "model";
        const char* other_key = r.what == ComponentClass::link ? "model" : "type";
        if (m.has(other_key))
          sink.error(m.where(other_key), fmt::format("'{}' narrows {}, not {}", other_key,
                                                     r.what == ComponentClass::link ? "devices" : "links",
                                                     r.what == ComponentClass::link ? "links" : *component + "s"));
        if (r.what == ComponentClass::domain && m.has("model"))
          sink.error(m.where("model"), "'model' narrows devices; a level fails as a whole");
        if (auto pattern = m.string(pattern_key)) {
          NamePattern p;
          std::string error;
          if (!p.parse(*pattern, error))
            sink.error(m.where(pattern_key), fmt::format("'{}' is not a pattern: {}", *pattern, error));
          r.pattern = *pattern;
        }
        const bool per_day = m.has("per_day");
        const bool mtbf = m.has("mtbf_hours");
        if (per_day == mtbf) {
          sink.error(m.where(), "a failure rate needs exactly one of 'per_day' (failures per component per day) "
                                "and 'mtbf_hours'");
          continue;
        }
        if (per_day) {
          if (auto v = m.number("per_day", 0, 1e6)) r.per_day = *v;
        } else if (auto v = m.number("mtbf_hours", 1e-6, 1e15)) {
          r.per_day = kHoursPerDay / *v;
        }
        if (auto v = m.number("repair_hours", 0, 1e7)) r.repair_hours = *v;
        out.rates.push_back(r);
      }
    }
  }
  sink.throw_if_any();
  return out;
}

std::vector<ComponentRate> component_rates(const Topology& t, const FailureRates& rates) {
  // Patterns compiled once; an entry whose pattern does not parse matches nothing.
  std::vector<std::optional<NamePattern>> patterns;
  for (const FailureRate& r : rates.rates) {
    NamePattern p;
    std::string error;
    patterns.push_back(r.pattern.empty() || !p.parse(r.pattern, error) ? std::nullopt : std::optional(p));
  }
  auto matches = [&](std::size_t i, std::string_view text) {
    return rates.rates[i].pattern.empty() || (patterns[i] && patterns[i]->matches(text));
  };
  std::vector<ComponentRate> out;
  auto add = [&](ComponentClass what, std::uint32_t id, auto&& matches_entry) {
    ComponentRate c{what, id, 0, 0};
    double highest = -1;
    for (std::size_t i = 0; i < rates.rates.size(); ++i) {
      const FailureRate& r = rates.rates[i];
      if (r.what != what || !matches_entry(i, r)) continue;
      c.per_day += r.per_day;
      if (r.per_day > highest) {
        highest = r.per_day;
        c.repair_hours = r.repair_hours;
      }
    }
    if (c.per_day > 0) out.push_back(c);
  };
  for (DeviceId d = 0; d < t.device_count(); ++d) {
    const Device& dev = t.device(d);
    add(ComponentClass::device, d,
        [&](std::size_t i, const FailureRate& r) { return r.device_kind == dev.kind && matches(i, t.str(dev.model)); });
  }
  for (LinkId l = 0; l < t.link_count(); ++l)
    add(ComponentClass::link, l,
        [&](std::size_t i, const FailureRate&) { return matches(i, t.link_type(t.link(l)).name); });
  for (DomainId d = 0; d < t.domain_count(); ++d)
    add(ComponentClass::domain, d, [&](std::size_t, const FailureRate& r) { return r.level == t.domain(d).level; });
  return out;
}

}  // namespace topoplan
