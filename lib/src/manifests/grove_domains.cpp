#include "grove_domains.hpp"

#include <fmt/format.h>

namespace topoplan {

bool GroveDomains::select(const std::string& name) {
  name_ = name;
  auto it = topologies_.bindings.find(name);
  binding_ = it == topologies_.bindings.end() ? nullptr : &it->second;
  return binding_ != nullptr;
}

std::optional<std::size_t> GroveDomains::rank(const std::string& domain) const {
  if (binding_) {
    for (std::size_t i = 0; i < binding_->levels.size(); ++i)
      if (binding_->levels[i].domain == domain) return i;
    return std::nullopt;
  }
  if (domain == "host") return levels_.topology().host_level();
  return levels_.level_of_label(domain);
}

std::optional<LevelIndex> GroveDomains::level_of(const std::string& domain, const SourceLocation& at,
                                                 std::string_view kind, DiagnosticSink& sink) const {
  if (binding_) {
    for (const GroveTopologies::Level& l : binding_->levels)
      if (l.domain == domain)
        return levels_.resolve_label(l.key, fmt::format("{} level '{}'", kind, domain), l.where, sink);
    return std::nullopt;
  }
  if (auto r = rank(domain)) return static_cast<LevelIndex>(*r);
  const std::string object = name_.empty() ? fmt::format("the {}", kind) : fmt::format("{} '{}'", kind, name_);
  sink.error(at, fmt::format("topology domain '{}' is not a level of topology '{}' ({}); give {} among the inputs: "
                             "its levels map the domains to node labels",
                             domain, levels_.topology().name(), levels_.level_list(), object));
  return std::nullopt;
}

std::string GroveDomains::domain_list() const {
  std::string out;
  if (binding_)
    for (const GroveTopologies::Level& l : binding_->levels) out += (out.empty() ? "" : " ") + l.domain;
  return out;
}

}  // namespace topoplan
