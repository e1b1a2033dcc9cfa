#include "topoplan/io/topology_yaml.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "topoplan/io/file_kind.hpp"
#include "topoplan/io/hostlist.hpp"
#include "topoplan/io/name_template.hpp"
#include "topoplan/model/topology_builder.hpp"
#include "topology_document.hpp"
#include "yaml_support.hpp"

namespace topoplan {

namespace {

// ---------------------------------------------------------------------------
// The file, read into plain structs (every field keeps where it came from).

enum class LinkMode { all, pairwise, rail, mesh, ring, chain, groups };

constexpr std::pair<std::string_view, LinkMode> kLinkModes[] = {
    {"all", LinkMode::all},   {"pairwise", LinkMode::pairwise}, {"rail", LinkMode::rail},
    {"mesh", LinkMode::mesh}, {"ring", LinkMode::ring},         {"chain", LinkMode::chain},
    {"groups", LinkMode::groups}};

struct Text {
  std::string value;
  SourceLocation where;
};

struct LabelRule {
  std::string key;
  Text value;  // a template
};

struct DeviceRule {
  Text names;  // template, then hostlist
  DeviceKind kind = DeviceKind::gpu;
  std::string model;
  float memory_gib = 0;
  float speed = 1.0f;
  DeviceState state = DeviceState::up;
  Labels labels;
  std::uint32_t origin = 0;
};

struct LinkRule {
  Text from;
  Text to;
  LinkMode mode = LinkMode::all;
  LinkType type;
  Text count{"1", {}};
  double bandwidth = -1;
  double latency = -1;
  LevelIndex group_level = 0;
  bool optional = false;  // may match nothing (e.g. only in full groups)
  std::uint32_t origin = 0;
};

struct GroupRule {
  std::size_t block = 0;
  Text size;
  Text name;
  std::uint32_t origin = 0;
};

struct ChildRule {
  std::size_t block = 0;
  Text count;
  Text name;
  std::optional<Text> names;  // an explicit hostlist instead of count + name
  std::optional<GroupRule> group;
  std::uint32_t origin = 0;
};

struct Block {
  std::string name;
  SourceLocation where;
  LevelIndex level = 0;
  std::optional<Text> hostname;
  std::vector<LabelRule> labels;
  std::vector<DeviceRule> devices;
  std::vector<LinkRule> links;
  std::vector<ChildRule> children;
  NodeResources node;  // host-level blocks: resources, taints, state
};

enum class OverrideTarget { device, node, domain };

struct Override {
  OverrideTarget target = OverrideTarget::device;
  Text pattern;
  std::optional<DeviceState> state;
  std::optional<float> speed;
  std::optional<float> memory_gib;
  Labels labels;
};

struct Spec {
  std::string name;
  std::string description;
  std::vector<TopologyParameter> parameters;
  std::vector<std::string> levels;
  std::vector<Block> blocks;
  std::size_t root = 0;
  std::vector<Override> overrides;
  NcclEnvironment nccl;
};

bool is_identifier(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Names of topologies, blocks, domains and devices: printable, no spaces, no
// path separator, no glob or list syntax, at most 253 characters (a DNS name).

class SpecReader {
 public:
  /// Origins of rules are appended to `origins`; rule i gets index i + 1, the
  /// index TopologyBuilder::add_origin returns when they are added in order.
  SpecReader(const std::string& file, DiagnosticSink& sink, std::vector<SourceLocation>* origins)
      : file_(file), sink_(sink), origins_(origins) {}

  Spec read(const yaml::Node& root, bool header_only);

 private:
  std::uint32_t origin(const SourceLocation& where) {
    if (!origins_) return 0;
    origins_->push_back(where);
    return static_cast<std::uint32_t>(origins_->size());
  }
  std::optional<Text> text(yaml::MapReader& map, std::string_view key, bool required = false) {
    auto value = map.string(key, required);
    if (!value) return std::nullopt;
    return Text{*value, map.where(key)};
  }
  std::optional<LevelIndex> level(const Text& name, const Spec& spec);
  Labels read_labels(const yaml::Node& node);
  std::vector<LabelRule> read_label_rules(const yaml::Node& node);
  void read_parameters(const yaml::Node& node, Spec& spec);
  void read_nccl(const yaml::Node& node, NcclEnvironment& env);
  void read_block(const std::string& name, const yaml::Node& node, Spec& spec, Block& block);
  void read_device(const yaml::Node& node, const Block& block, const Spec& spec, std::vector<DeviceRule>& out);
  void read_link(const yaml::Node& node, const Block& block, const Spec& spec, std::vector<LinkRule>& out);
  void read_child(const yaml::Node& node, const Spec& spec, std::vector<ChildRule>& out);
  void check_children(Spec& spec);
  void read_override(const yaml::Node& node, std::vector<Override>& out);
  void read_node_resources(yaml::MapReader& m, NodeResources& out);
  std::optional<std::size_t> block_index(const Text& name, const Spec& spec);

  const std::string& file_;
  DiagnosticSink& sink_;
  std::vector<SourceLocation>* origins_;
  // Block names in file order with their nodes, resolved after all are read.
  std::vector<std::pair<Text, std::vector<std::pair<Text, std::optional<Text>>>>> pending_children_;
};

std::optional<LevelIndex> SpecReader::level(const Text& name, const Spec& spec) {
  for (std::size_t i = 0; i < spec.levels.size(); ++i)
    if (spec.levels[i] == name.value) return static_cast<LevelIndex>(i);
  std::string hint = did_you_mean(name.value, spec.levels);
  sink_.error(name.where, fmt::format("unknown level '{}'; the levels are {}{}{}", name.value,
                                      fmt::join(spec.levels, ", "), hint.empty() ? "" : "; ", hint));
  return std::nullopt;
}

Labels SpecReader::read_labels(const yaml::Node& node) {
  Labels labels;
  for (const LabelRule& rule : read_label_rules(node)) labels.emplace_back(rule.key, rule.value.value);
  return labels;
}

std::vector<LabelRule> SpecReader::read_label_rules(const yaml::Node& node) {
  std::vector<LabelRule> out;
  if (!node.IsDefined()) return out;
  if (!node.IsMap()) {
    sink_.error(yaml::where(file_, node), "'labels' must be a mapping of label keys to values");
    return out;
  }
  for (const auto& entry : node) {
    auto key = yaml::scalar(entry.first, file_, sink_, "a label key");
    auto value = yaml::scalar(entry.second, file_, sink_, "a label value");
    if (!key || !value) continue;
    if (key->empty() || key->size() > 316) {
      sink_.error(yaml::where(file_, entry.first), "label keys must have 1 to 316 characters");
      continue;
    }
    out.push_back({*key, {*value, yaml::where(file_, entry.second)}});
  }
  return out;
}

void SpecReader::read_parameters(const yaml::Node& node, Spec& spec) {
  if (!node.IsDefined()) return;
  if (!node.IsMap()) {
    sink_.error(yaml::where(file_, node), "'parameters' must map parameter names to their settings");
    return;
  }
  for (const auto& entry : node) {
    auto name = yaml::scalar(entry.first, file_, sink_, "a parameter name");
    if (!name) continue;
    if (!is_identifier(*name)) {
      sink_.error(yaml::where(file_, entry.first),
                  fmt::format("parameter name '{}' must be letters, digits and '_'", *name));
      continue;
    }
    yaml::MapReader p(entry.second, file_, sink_, fmt::format("parameter '{}'", *name));
    p.allow({"default", "min", "max", "help"});
    TopologyParameter param;
    param.name = *name;
    auto min = p.integer("min", 0, 1'000'000'000);
    auto max = p.integer("max", 0, 1'000'000'000, true);
    auto def = p.integer("default", 0, 1'000'000'000, true);
    param.help = p.string("help").value_or("");
    param.min = min.value_or(1);
    param.max = max.value_or(param.min);
    if (def && (*def < param.min || *def > param.max))
      sink_.error(p.where("default"), fmt::format("default {} lies outside min {} and max {}", *def, param.min,
                                                  param.max));
    param.default_value = param.value = def.value_or(param.min);
    spec.parameters.push_back(std::move(param));
  }
}

void SpecReader::read_device(const yaml::Node& node, const Block& block, const Spec& spec,
                             std::vector<DeviceRule>& out) {
  yaml::MapReader m(node, file_, sink_, "a device");
  m.allow({"name", "kind", "model", "memory", "speed", "state", "labels"});
  if (!m.ok()) return;
  DeviceRule rule;
  auto names = text(m, "name", true);
  auto kind = text(m, "kind", true);
  if (!names || !kind) return;
  rule.names = *names;
  rule.origin = origin(m.where());
  if (auto k = parse_device_kind(kind->value)) {
    rule.kind = *k;
  } else {
    std::string hint = did_you_mean(kind->value, device_kind_names());
    sink_.error(kind->where, fmt::format("unknown device kind '{}'; kinds are {}{}{}", kind->value,
                                         fmt::join(device_kind_names(), ", "), hint.empty() ? "" : "; ", hint));
    return;
  }
  if (is_accelerator(rule.kind) && block.level + 1 != spec.levels.size())
    sink_.error(kind->where, fmt::format("a {} must sit in a block of the host level '{}', not '{}'",
                                         kind->value, spec.levels.back(), spec.levels[block.level]));
  rule.model = m.string("model").value_or("");
  rule.memory_gib = static_cast<float>(m.number("memory", 0, 1e9).value_or(0));
  rule.speed = static_cast<float>(m.number("speed", 1e-6, 1e6).value_or(1.0));
  if (auto state = text(m, "state")) {
    if (auto s = parse_device_state(state->value))
      rule.state = *s;
    else
      sink_.error(state->where, fmt::format("unknown state '{}'; states are up, down, drain", state->value));
  }
  rule.labels = read_labels(m.get("labels"));
  out.push_back(std::move(rule));
}

void SpecReader::read_link(const yaml::Node& node, const Block& block, const Spec& spec, std::vector<LinkRule>& out) {
  yaml::MapReader m(node, file_, sink_, "a link rule");
  m.allow({"from", "to", "type", "count", "bandwidth", "latency", "mode", "group", "optional"});
  if (!m.ok()) return;
  LinkRule rule;
  rule.origin = origin(m.where());
  auto from = text(m, "from", true);
  auto type = text(m, "type", true);
  if (auto mode = text(m, "mode")) {
    bool found = false;
    std::vector<std::string> names;
    for (auto [name, value] : kLinkModes) {
      names.emplace_back(name);
      if (name == mode->value) {
        rule.mode = value;
        found = true;
      }
    }
    if (!found) {
      std::string hint = did_you_mean(mode->value, names);
      sink_.error(mode->where, fmt::format("unknown link mode '{}'; modes are {}{}{}", mode->value,
                                           fmt::join(names, ", "), hint.empty() ? "" : "; ", hint));
    }
  }
  auto to = text(m, "to");
  bool needs_to = rule.mode == LinkMode::all || rule.mode == LinkMode::pairwise || rule.mode == LinkMode::rail;
  if (needs_to && !to) sink_.error(m.where(), "this link rule needs 'to' (or a mode that links 'from' among itself)");
  if (!needs_to && to) sink_.error(to->where, "mesh, ring, chain and groups link 'from' among itself; drop 'to'");
  auto group = text(m, "group");
  if (rule.mode == LinkMode::groups) {
    if (!group) {
      sink_.error(m.where(), "mode 'groups' needs 'group: LEVEL', the level whose domains are the groups");
    } else if (auto l = level(*group, spec)) {
      rule.group_level = *l;
      if (*l <= block.level)
        sink_.error(group->where, fmt::format("group level '{}' must lie below the block's level '{}'", group->value,
                                              spec.levels[block.level]));
    }
  } else if (group) {
    sink_.error(group->where, "'group' only applies to mode 'groups'");
  }
  if (type) {
    if (auto t = find_link_type(type->value)) {
      rule.type = *t;
    } else {
      std::string hint = did_you_mean(type->value, link_type_names());
      sink_.error(type->where, fmt::format("unknown link type '{}'; types are {}{}{}", type->value,
                                           fmt::join(link_type_names(), ", "), hint.empty() ? "" : "; ", hint));
    }
  }
  if (auto count = text(m, "count")) rule.count = *count;
  rule.bandwidth = m.number("bandwidth", 1e-6, 1e7).value_or(-1);
  rule.latency = m.number("latency", 0, 1e7).value_or(-1);
  if (auto optional = text(m, "optional")) {
    if (optional->value == "true")
      rule.optional = true;
    else if (optional->value != "false")
      sink_.error(optional->where, fmt::format("'optional' is true or false, not '{}'", optional->value));
  }
  if (from) rule.from = *from;
  if (to) rule.to = *to;
  if (from && type) out.push_back(std::move(rule));
}

void SpecReader::read_child(const yaml::Node& node, const Spec& spec, std::vector<ChildRule>& out) {
  yaml::MapReader m(node, file_, sink_, "a child rule");
  m.allow({"block", "count", "name", "names", "group"});
  if (!m.ok()) return;
  auto block = text(m, "block", true);
  if (!block) return;
  ChildRule rule;
  rule.origin = origin(m.where());
  rule.count = text(m, "count").value_or(Text{"1", m.where()});
  rule.name = text(m, "name").value_or(Text{block->value + "{i}", m.where()});
  rule.names = text(m, "names");
  if (rule.names && (m.has("count") || m.has("name")))
    sink_.error(rule.names->where, "give either 'names' (a list) or 'count' and 'name', not both");
  std::optional<Text> group_block;
  if (m.has("group")) {
    yaml::MapReader g(m.get("group"), file_, sink_, "a group");
    g.allow({"block", "size", "name"});
    if (g.ok()) {
      group_block = text(g, "block", true);
      auto size = text(g, "size", true);
      if (group_block && size) {
        GroupRule gr;
        gr.size = *size;
        gr.name = text(g, "name").value_or(Text{group_block->value + "{i}", g.where()});
        gr.origin = origin(g.where());
        rule.group = gr;
      }
    }
  }
  pending_children_.back().second.emplace_back(*block, group_block);
  out.push_back(std::move(rule));
  (void)spec;
}

std::optional<std::size_t> SpecReader::block_index(const Text& name, const Spec& spec) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < spec.blocks.size(); ++i) {
    if (spec.blocks[i].name == name.value) return i;
    names.push_back(spec.blocks[i].name);
  }
  std::string hint = did_you_mean(name.value, names);
  sink_.error(name.where, fmt::format("unknown block '{}'{}{}", name.value, hint.empty() ? "" : "; ", hint));
  return std::nullopt;
}

// Resolves block references of child rules once every block is known, and
// checks that children sit exactly one level below their parent.
void SpecReader::check_children(Spec& spec) {
  for (std::size_t b = 0; b < spec.blocks.size(); ++b) {
    Block& block = spec.blocks[b];
    auto& refs = pending_children_[b].second;
    for (std::size_t c = 0; c < block.children.size(); ++c) {
      ChildRule& rule = block.children[c];
      const auto& [child_name, group_name] = refs[c];
      auto child = block_index(child_name, spec);
      if (!child) continue;
      rule.block = *child;
      LevelIndex expected = block.level + 1;
      if (rule.group && group_name) {
        auto group = block_index(*group_name, spec);
        if (!group) continue;
        rule.group->block = *group;
        const Block& gb = spec.blocks[*group];
        if (gb.level != expected)
          sink_.error(group_name->where,
                      fmt::format("group block '{}' is at level '{}'; a group of '{}' must be at level '{}'",
                                  gb.name, spec.levels[gb.level], block.name,
                                  expected < spec.levels.size() ? spec.levels[expected] : "(none)"));
        if (!gb.children.empty())
          sink_.error(group_name->where,
                      fmt::format("group block '{}' must not have children of its own; the grouped blocks are its "
                                  "children",
                                  gb.name));
        ++expected;
      }
      const Block& cb = spec.blocks[*child];
      if (cb.level != expected)
        sink_.error(child_name.where,
                    fmt::format("block '{}' is at level '{}' but children of '{}' here must be at level '{}'", cb.name,
                                spec.levels[cb.level], block.name,
                                expected < spec.levels.size() ? spec.levels[expected] : "(below the host level)"));
    }
  }
}

void SpecReader::read_block(const std::string& name, const yaml::Node& node, Spec& spec, Block& block) {
  yaml::MapReader m(node, file_, sink_, fmt::format("block '{}'", name));
  m.allow({"level", "hostname", "labels", "devices", "links", "children", "resources", "taints", "state"});
  block.name = name;
  block.where = m.where();
  pending_children_.push_back({Text{name, m.where()}, {}});
  if (!m.ok()) return;
  auto level_name = text(m, "level", true);
  if (!level_name) return;
  auto l = level(*level_name, spec);
  if (!l) return;
  block.level = *l;
  bool host = block.level + 1 == spec.levels.size();
  block.hostname = text(m, "hostname");
  if (block.hostname && !host)
    sink_.error(block.hostname->where, fmt::format("only blocks of the host level '{}' have hostnames",
                                                   spec.levels.back()));
  block.labels = read_label_rules(m.get("labels"));
  if (!host) {
    for (std::string_view key : {"resources", "taints", "state"})
      if (m.has(key))
        sink_.error(m.where(key), fmt::format("only blocks of the host level '{}' have '{}'", spec.levels.back(), key));
  } else {
    read_node_resources(m, block.node);
  }
  auto each = [&](std::string_view key, auto&& fn) {
    yaml::Node list = m.get(key);
    if (!list.IsDefined()) return;
    if (!list.IsSequence()) {
      sink_.error(yaml::where(file_, list), fmt::format("'{}' must be a list", key));
      return;
    }
    for (const yaml::Node& item : list) fn(item);
  };
  each("devices", [&](const yaml::Node& item) { read_device(item, block, spec, block.devices); });
  each("links", [&](const yaml::Node& item) { read_link(item, block, spec, block.links); });
  if (host && m.has("children"))
    sink_.error(m.where("children"), "blocks of the host level hold devices, not children");
  else
    each("children", [&](const yaml::Node& item) { read_child(item, spec, block.children); });
}

// A node's Kubernetes view: allocatable resources other than its
// accelerators (which are its devices), taints and state.
void SpecReader::read_node_resources(yaml::MapReader& m, NodeResources& out) {
  if (yaml::Node r = m.get("resources"); r.IsDefined() && !r.IsNull()) {
    if (!r.IsMap()) {
      sink_.error(yaml::where(file_, r), "'resources' must map resource names to quantities");
    } else {
      for (const auto& entry : r) {
        auto name = yaml::scalar(entry.first, file_, sink_, "a resource name");
        auto value = yaml::scalar(entry.second, file_, sink_, "a resource quantity");
        if (!name || !value) continue;
        if (*name == "nvidia.com/gpu" || *name == "amd.com/gpu") {
          sink_.error(yaml::where(file_, entry.first),
                      fmt::format("'{}' is counted from the node's accelerator devices; it is not a resource", *name));
          continue;
        }
        auto q = parse_quantity(*name, *value);
        if (!q) {
          sink_.error(yaml::where(file_, entry.second),
                      fmt::format("resource '{}' is '{}', not a Kubernetes quantity (such as 500m, 64, 16Gi)", *name,
                                  *value));
          continue;
        }
        out.allocatable.set(*name, *q);
      }
    }
  }
  if (yaml::Node t = m.get("taints"); t.IsDefined() && !t.IsNull()) {
    if (!t.IsSequence()) {
      sink_.error(yaml::where(file_, t), "'taints' must be a list of {key, value, effect}");
    } else {
      for (const yaml::Node& item : t) {
        yaml::MapReader tm(item, file_, sink_, "a taint");
        tm.allow({"key", "value", "effect"});
        if (!tm.ok()) continue;
        auto key = tm.string("key", true);
        auto value = tm.string("value");
        auto effect = tm.string("effect", true);
        if (!key || !effect) continue;
        if (*effect != "NoSchedule" && *effect != "PreferNoSchedule" && *effect != "NoExecute") {
          sink_.error(tm.where("effect"),
                      fmt::format("taint effect '{}' is not NoSchedule, PreferNoSchedule or NoExecute", *effect));
          continue;
        }
        out.taints.push_back({*key, value.value_or(""), *effect});
      }
    }
  }
  if (auto state = text(m, "state")) {
    auto s = parse_device_state(state->value);
    if (!s)
      sink_.error(state->where, fmt::format("unknown state '{}'; states are up, down, drain", state->value));
    else
      out.state = *s;
  }
}

void SpecReader::read_override(const yaml::Node& node, std::vector<Override>& out) {
  yaml::MapReader m(node, file_, sink_, "an override");
  m.allow({"device", "node", "domain", "state", "speed", "memory", "labels"});
  if (!m.ok()) return;
  Override o;
  int targets = 0;
  for (auto [key, target] : {std::pair{"device", OverrideTarget::device}, std::pair{"node", OverrideTarget::node},
                             std::pair{"domain", OverrideTarget::domain}}) {
    if (auto t = text(m, key)) {
      o.pattern = *t;
      o.target = target;
      ++targets;
    }
  }
  if (targets != 1) {
    sink_.error(m.where(), "an override names exactly one of 'device', 'node' or 'domain'");
    return;
  }
  if (auto state = text(m, "state")) {
    o.state = parse_device_state(state->value);
    if (!o.state) sink_.error(state->where, fmt::format("unknown state '{}'; states are up, down, drain", state->value));
  }
  if (auto speed = m.number("speed", 1e-6, 1e6)) o.speed = static_cast<float>(*speed);
  if (auto memory = m.number("memory", 0, 1e9)) o.memory_gib = static_cast<float>(*memory);
  o.labels = read_labels(m.get("labels"));
  out.push_back(std::move(o));
}

// `nccl:` maps NCCL's variables to the values the platform sets.
void SpecReader::read_nccl(const yaml::Node& node, NcclEnvironment& env) {
  if (!node.IsDefined()) return;
  if (!node.IsMap()) {
    sink_.error(yaml::where(file_, node), "'nccl' must map NCCL variables to values, e.g. {NCCL_PROTO: Simple}");
    return;
  }
  for (const auto& entry : node) {
    auto name = yaml::scalar(entry.first, file_, sink_, "an NCCL variable");
    auto value = yaml::scalar(entry.second, file_, sink_, "an NCCL variable's value");
    if (!name || !value) continue;
    const SourceLocation where = yaml::where(file_, entry.second);
    // A known key's bad value is reported at the value, an unknown key at the key.
    const bool known = *name == kNcclVersionKey || *name == kNcclNetLatencyKey ||
                       std::find(kNcclVariables.begin(), kNcclVariables.end(), *name) != kNcclVariables.end();
    if (std::string problem = apply_nccl_setting(env, {*name, *value, where}); !problem.empty())
      sink_.error(known ? where : yaml::where(file_, entry.first), problem);
  }
}

Spec SpecReader::read(const yaml::Node& root, bool header_only) {
  Spec spec;
  yaml::MapReader m(root, file_, sink_, "a topology file");
  m.allow({"name", "description", "parameters", "levels", "blocks", "root", "overrides", "nccl"});
  if (!m.ok()) return spec;
  if (auto name = text(m, "name", true)) {
    spec.name = name->value;
    if (std::string problem = name_problem(spec.name); !problem.empty())
      sink_.error(name->where, fmt::format("topology name '{}' {}", spec.name, problem));
  }
  spec.description = m.string("description").value_or("");
  read_parameters(m.get("parameters"), spec);
  read_nccl(m.get("nccl"), spec.nccl);
  yaml::Node levels = m.get("levels");
  if (!levels.IsDefined()) {
    sink_.error(m.where(), "a topology file needs 'levels', coarsest first, e.g. [cluster, rack, node]");
  } else if (!levels.IsSequence() || levels.size() == 0) {
    sink_.error(yaml::where(file_, levels), "'levels' must be a list of level names, coarsest first");
  } else {
    for (const yaml::Node& l : levels) {
      auto name = yaml::scalar(l, file_, sink_, "a level name");
      if (!name) continue;
      if (!is_identifier(*name))
        sink_.error(yaml::where(file_, l), fmt::format("level name '{}' must be letters, digits and '_'", *name));
      else if (*name == "i" || *name == "j" || *name == "g")
        sink_.error(yaml::where(file_, l), fmt::format("level name '{}' is reserved for name templates", *name));
      else if (std::find(spec.levels.begin(), spec.levels.end(), *name) != spec.levels.end())
        sink_.error(yaml::where(file_, l), fmt::format("level '{}' is listed twice", *name));
      else if (std::any_of(spec.parameters.begin(), spec.parameters.end(),
                           [&](const TopologyParameter& p) { return p.name == *name; }))
        sink_.error(yaml::where(file_, l), fmt::format("level '{}' has the name of a parameter", *name));
      spec.levels.push_back(*name);
    }
    if (spec.levels.size() > 16)
      sink_.error(yaml::where(file_, levels), "at most 16 levels are supported (as in Kueue)");
  }
  if (header_only || !sink_.empty()) return spec;

  yaml::Node blocks = m.get("blocks");
  if (!blocks.IsDefined() || !blocks.IsMap() || blocks.size() == 0) {
    sink_.error(blocks.IsDefined() ? yaml::where(file_, blocks) : m.where(),
                "a topology file needs 'blocks': a mapping from block names to their definitions");
    return spec;
  }
  spec.blocks.reserve(blocks.size());
  for (const auto& entry : blocks) {
    auto name = yaml::scalar(entry.first, file_, sink_, "a block name");
    spec.blocks.emplace_back();
    if (!name) {
      pending_children_.push_back({Text{}, {}});
      continue;
    }
    if (std::string problem = name_problem(*name); !problem.empty())
      sink_.error(yaml::where(file_, entry.first), fmt::format("block name '{}' {}", *name, problem));
    for (std::size_t i = 0; i + 1 < spec.blocks.size(); ++i)
      if (spec.blocks[i].name == *name)
        sink_.error(yaml::where(file_, entry.first), fmt::format("block '{}' is defined twice", *name));
    read_block(*name, entry.second, spec, spec.blocks.back());
  }
  check_children(spec);

  if (auto root_name = text(m, "root")) {
    if (auto index = block_index(*root_name, spec)) {
      spec.root = *index;
      if (spec.blocks[*index].level != 0)
        sink_.error(root_name->where, fmt::format("the root block '{}' must be at the first level '{}'", root_name->value,
                                             spec.levels.front()));
    }
  } else {
    std::vector<std::size_t> tops;
    for (std::size_t i = 0; i < spec.blocks.size(); ++i)
      if (spec.blocks[i].level == 0) tops.push_back(i);
    if (tops.size() == 1)
      spec.root = tops.front();
    else
      sink_.error(m.where(), fmt::format("say which block is the root with 'root: BLOCK' ({} blocks are at level "
                                         "'{}')",
                                         tops.size(), spec.levels.empty() ? "" : spec.levels.front()));
  }

  yaml::Node overrides = m.get("overrides");
  if (overrides.IsDefined()) {
    if (!overrides.IsSequence())
      sink_.error(yaml::where(file_, overrides), "'overrides' must be a list");
    else
      for (const yaml::Node& o : overrides) read_override(o, spec.overrides);
  }
  return spec;
}

// ---------------------------------------------------------------------------
// Settings from the command line.

void apply_settings(Spec& spec, const ParameterSettings& settings) {
  DiagnosticSink sink;
  SourceLocation where{settings.origin, 0, 0};
  std::vector<std::string> names;
  for (const TopologyParameter& p : spec.parameters) names.push_back(p.name);
  for (const auto& [key, value] : settings.values) {
    auto it = std::find_if(spec.parameters.begin(), spec.parameters.end(),
                           [&k = key](const TopologyParameter& p) { return p.name == k; });
    if (it == spec.parameters.end()) {
      std::string hint = did_you_mean(key, names);
      sink.error(where, names.empty()
                            ? fmt::format("topology '{}' takes no parameters, but '{}' was given", spec.name, key)
                            : fmt::format("topology '{}' has no parameter '{}'; it takes {}{}{}", spec.name, key,
                                          fmt::join(names, ", "), hint.empty() ? "" : "; ", hint));
      continue;
    }
    auto number = yaml::parse_integer(value);
    if (!number) {
      sink.error(where, fmt::format("parameter '{}' must be a whole number, not '{}'", key, value));
      continue;
    }
    if (*number < it->min || *number > it->max) {
      sink.error(where, fmt::format("parameter '{}' is {}; it must be between {} and {}", key, *number, it->min,
                                    it->max));
      continue;
    }
    it->value = *number;
  }
  sink.throw_if_any();
}

// ---------------------------------------------------------------------------
// Instantiation: blocks become domains, devices and links.

class Instantiator {
 public:
  Instantiator(const Spec& spec, TopologyBuilder& builder)
      : spec_(spec), b_(builder), level_counter_(spec.levels.size(), 0) {
    for (const TopologyParameter& p : spec.parameters) scope_.set(p.name, p.value);
    scope_.set(spec.levels.front(), spec.name);
    devices_of_.emplace_back();
    paths_.emplace_back();
  }

  void run() {
    const Block& root = spec_.blocks[spec_.root];
    scope_.set("i", 0LL);
    scope_.set("j", 0LL);
    scope_.set("g", 0LL);
    level_counter_[0] = 1;
    add_devices(root, b_.root());
    add_children(root, b_.root());
    finish_domain(root, b_.root());
    check_unmatched();
    apply_overrides();
  }

 private:
  [[noreturn]] void fail(const SourceLocation& where, std::string message) {
    throw InputError(where, std::move(message));
  }

  std::string expand(const Text& t) {
    if (t.value.find_first_of("{}") == std::string::npos) return t.value;
    std::string error;
    auto out = expand_template(t.value, scope_, error);
    if (!out) fail(t.where, fmt::format("in '{}': {}", t.value, error));
    return *out;
  }

  long long expand_int(const Text& t, long long min, long long max, std::string_view what) {
    std::string s = expand(t);
    auto value = yaml::parse_integer(s);
    if (!value && !s.empty() && s.find_first_not_of("0123456789", s[0] == '-' || s[0] == '+' ? 1 : 0) == std::string::npos)
      fail(t.where, fmt::format("{} is {}; it must be between {} and {}", what, s, min, max));  // too large for 64 bits
    if (!value) fail(t.where, fmt::format("{} '{}' is not a whole number", what, s));
    if (*value < min || *value > max)
      fail(t.where, fmt::format("{} is {}; it must be between {} and {}", what, *value, min, max));
    return *value;
  }

  static bool is_fixed(const Text& t) { return t.value.find_first_of("{}") == std::string::npos; }

  const std::vector<std::string>& expand_names(const Text& t) {
    // A fixed list is expanded once per rule; a templated one once per result.
    if (is_fixed(t))
      if (auto it = fixed_names_.find(&t); it != fixed_names_.end()) return *it->second;
    std::string list = expand(t);
    auto it = name_cache_.find(list);
    if (it != name_cache_.end()) {
      if (is_fixed(t)) fixed_names_.emplace(&t, &it->second);
      return it->second;
    }
    HostlistExpansion e = expand_hostlist(list, TopologyLimits::max_devices);
    if (!e.ok()) fail(t.where, fmt::format("in name list '{}': {}", list, e.error));
    for (const std::string& n : e.names)
      if (std::string problem = name_problem(n); !problem.empty())
        fail(t.where, fmt::format("name '{}' {}", n, problem));
    const std::vector<std::string>& names = name_cache_.emplace(list, std::move(e.names)).first->second;
    if (is_fixed(t)) fixed_names_.emplace(&t, &names);
    return names;
  }

  void check_size(const SourceLocation& where) {
    if (b_.device_count() > TopologyLimits::max_devices)
      fail(where, fmt::format("the topology would have more than {} devices", TopologyLimits::max_devices));
    if (b_.link_count() > TopologyLimits::max_links)
      fail(where, fmt::format("the topology would have more than {} links", TopologyLimits::max_links));
    if (b_.domain_count() > TopologyLimits::max_domains)
      fail(where, fmt::format("the topology would have more than {} domains", TopologyLimits::max_domains));
  }

  // Creates a child domain and pushes its variables; the caller truncates the
  // scope to `mark` when done with it.
  DomainId make_domain(DomainId parent, const Text& name_template, long long i, long long j, std::uint32_t origin) {
    LevelIndex level = b_.level_of(parent) + 1;
    long long g = level_counter_[level]++;
    scope_.set("i", i);
    scope_.set("j", j);
    scope_.set("g", g);
    std::string name = expand(name_template);
    if (std::string problem = name_problem(name); !problem.empty())
      fail(name_template.where, fmt::format("domain name '{}' {}", name, problem));
    DomainId d = b_.add_domain(parent, name, origin);
    const std::string& level_name = spec_.levels[level];
    scope_.set(level_name, name);
    scope_.set(level_name + "_i", i);
    scope_.set(level_name + "_j", j);
    scope_.set(level_name + "_g", g);
    devices_of_.emplace_back();
    paths_.push_back(paths_[parent].empty() ? name : paths_[parent] + "/" + name);
    return d;
  }

  void add_devices(const Block& block, DomainId d) {
    for (const DeviceRule& rule : block.devices) {
      DeviceProperties props;
      props.model = rule.model;
      props.memory_gib = rule.memory_gib;
      props.speed = rule.speed;
      props.state = rule.state;
      props.labels = rule.labels;
      for (const std::string& name : expand_names(rule.names))
        devices_of_[d].push_back(b_.add_device(d, rule.kind, name, props, rule.origin));
      check_size(rule.names.where);
    }
  }

  void add_children(const Block& block, DomainId d) {
    long long j = 0;
    for (const ChildRule& rule : block.children) {
      const Block& child = spec_.blocks[rule.block];
      // An explicit list names the children; {name} in the template is each.
      const std::vector<std::string>* listed = rule.names ? &expand_names(*rule.names) : nullptr;
      long long count = listed ? static_cast<long long>(listed->size())
                               : expand_int(rule.count, 0, static_cast<long long>(TopologyLimits::max_domains), "count");
      const Text listed_name{"{name}", rule.names ? rule.names->where : SourceLocation{}};
      const Text& name_template = listed ? listed_name : rule.name;
      auto set_listed = [&](long long k) {
        if (listed) scope_.set("name", (*listed)[static_cast<std::size_t>(k)]);
      };
      const std::size_t devices_before = b_.device_count();
      const std::size_t domains_before = b_.domain_count();
      const bool repeat_child = fixed_size(child) && fixed_links(child);
      // Children k0 <= k < k1 of `parent`; from the second on, built like
      // the first when nothing encloses this in a repeated instance.
      auto children_of = [&](DomainId parent, long long k0, long long k1, bool by_group) {
        bool repeat = k1 - k0 > 1 && deferring_ == 0 && repeat_child;
        Instance first;
        for (long long k = k0; k < k1; ++k) {
          std::size_t mark = scope_.size();
          set_listed(k);
          const Instance now = here();
          DomainId c = by_group ? make_domain(parent, name_template, k, k - k0, rule.origin)
                                : make_domain(parent, name_template, k, j++, rule.origin);
          if (repeat && k > k0) {
            repeat = build_like(names_free(child), first, now, [&] { instantiate(child, c); });
          } else {
            instantiate(child, c);
            if (k == k0) first = ended(now);
          }
          scope_.truncate(mark);
          if (!by_group && k == 0 && count > 1)
            project(child, count, devices_before, domains_before, listed ? rule.names->where : rule.count.where);
        }
      };
      if (!rule.group) {
        children_of(d, 0, count, false);
        continue;
      }
      const Block& group = spec_.blocks[rule.group->block];
      long long size = expand_int(rule.group->size, 1, static_cast<long long>(TopologyLimits::max_domains), "size");
      long long groups = (count + size - 1) / size;
      bool repeat = groups > 1 && deferring_ == 0 && repeat_child && fixed_size(group) && fixed_links(group);
      Instance first;
      for (long long gi = 0; gi < groups; ++gi) {
        std::size_t group_mark = scope_.size();
        const Instance now = here();
        DomainId gd = make_domain(d, rule.group->name, gi, j++, rule.group->origin);
        auto build = [&] {
          add_devices(group, gd);
          children_of(gd, gi * size, std::min(count, (gi + 1) * size), true);
          finish_domain(group, gd);
        };
        if (repeat && gi > 0) {
          repeat = build_like(names_free(group) && names_free(child), first, now, build);
        } else {
          build();
          if (gi == 0) first = ended(now);
        }
        scope_.truncate(group_mark);
      }
    }
  }

  // Every instance of a block whose names and counts are all fixed adds the
  // same devices and domains: after the first of `count`, a topology that
  // would be too large is refused before building the rest (a million nodes
  // of a million GPUs fails at once, not after 20 million devices).
  void project(const Block& child, long long count, std::size_t devices_before, std::size_t domains_before,
               const SourceLocation& where) {
    if (!fixed_size(child)) return;
    const auto n = static_cast<std::size_t>(count);
    const std::size_t devices = b_.device_count() - devices_before;
    const std::size_t domains = b_.domain_count() - domains_before;
    if (devices > 0 && devices_before + devices * n > TopologyLimits::max_devices)
      fail(where, fmt::format("the topology would have more than {} devices", TopologyLimits::max_devices));
    if (domains_before + domains * n > TopologyLimits::max_domains)
      fail(where, fmt::format("the topology would have more than {} domains", TopologyLimits::max_domains));
  }

  // Whether `own` holds for a block and every block below it (children and
  // groups), remembered per block in `cache`.
  template <typename Own>
  bool whole_subtree(const Block& block, std::unordered_map<const Block*, bool>& cache, const Own& own) {
    if (auto it = cache.find(&block); it != cache.end()) return it->second;
    bool holds = own(block);
    for (const ChildRule& r : block.children) {
      holds = holds && whole_subtree(spec_.blocks[r.block], cache, own);
      if (r.group) holds = holds && whole_subtree(spec_.blocks[r.group->block], cache, own);
    }
    cache.emplace(&block, holds);
    return holds;
  }

  bool fixed_size(const Block& block) {
    return whole_subtree(block, fixed_size_, [](const Block& b) {
      bool fixed = true;
      for (const DeviceRule& r : b.devices) fixed = fixed && is_fixed(r.names);
      for (const ChildRule& r : b.children)
        fixed = fixed && (r.names ? is_fixed(*r.names) : is_fixed(r.count)) && (!r.group || is_fixed(r.group->size));
      return fixed;
    });
  }

  void instantiate(const Block& block, DomainId d) {
    add_devices(block, d);
    add_children(block, d);
    finish_domain(block, d);
  }

  // Where one instance of a block starts (devices, domains, links before it)
  // and, for the first, where it ends.
  struct Instance {
    std::size_t devices = 0, domains = 0, links = 0;
    std::size_t domains_end = 0, links_end = 0;
  };

  // Whether every link rule in a block's subtree reads the same whatever
  // the instance: no templates in its patterns or count.
  bool fixed_links(const Block& block) {
    return whole_subtree(block, fixed_links_, [](const Block& b) {
      bool fixed = true;
      for (const LinkRule& r : b.links) fixed = fixed && is_fixed(r.from) && is_fixed(r.to) && is_fixed(r.count);
      return fixed;
    });
  }

  Instance here() const { return {b_.device_count(), b_.domain_count(), b_.link_count(), 0, 0}; }
  Instance ended(Instance start) const {
    start.domains_end = b_.domain_count();
    start.links_end = b_.link_count();
    return start;
  }

  // A later instance of a block of fixed size and fixed link rules, made by
  // `build` (its domain is the next one when `now` was taken): built like the
  // first, and when it has as many domains and its link patterns match the
  // same way (`names_free`: they name no domain; or its domains below the
  // instance's own carry the same local names), its links are those of the first, moved by
  // the devices in between. Resolving the patterns again per instance was a
  // third of loading a 131,040-GPU cluster. Otherwise (a template naming an
  // enclosing domain, a shorter last group) the link rules run as usual, in
  // the order they would have run, and false says to stop trying.
  template <typename Build>
  bool build_like(bool names_free, const Instance& first, const Instance& now, Build&& build) {
    const std::size_t pending = deferred_.size();
    ++deferring_;
    build();
    --deferring_;
    const std::size_t domains = b_.domain_count() - now.domains;
    const bool same = domains == first.domains_end - first.domains &&
                      (names_free ||
                       b_.same_local_names(static_cast<DomainId>(first.domains + 1),
                                           static_cast<DomainId>(now.domains + 1), domains - 1)) &&
                      b_.link_count() + (first.links_end - first.links) <= TopologyLimits::max_links;
    if (same) {
      b_.repeat_links(first.links, first.links_end, static_cast<std::uint32_t>(now.devices - first.devices));
    } else {
      for (std::size_t i = pending; i < deferred_.size(); ++i)
        for (const LinkRule& rule : deferred_[i].first->links) add_links(rule, deferred_[i].second);
    }
    deferred_.resize(pending);
    return same;
  }

  // Whether no link pattern in a block's subtree names a domain: every part
  // before the device's is `*`, so domain names cannot change what matches.
  bool names_free(const Block& block) {
    auto free_of_names = [](const Text& t) {
      std::string_view v = t.value;
      for (std::size_t slash = v.find('/'); slash != std::string_view::npos; slash = v.find('/')) {
        if (v.substr(0, slash) != "*") return false;
        v.remove_prefix(slash + 1);
      }
      return true;
    };
    return whole_subtree(block, names_free_, [&](const Block& b) {
      bool free = true;
      for (const LinkRule& r : b.links) free = free && free_of_names(r.from) && free_of_names(r.to);
      return free;
    });
  }

  void finish_domain(const Block& block, DomainId d) {
    instantiated_.insert(&block);
    if (block.level + 1 == spec_.levels.size()) {
      std::string host;
      if (block.hostname) {
        host = expand(*block.hostname);
        if (std::string problem = name_problem(host); !problem.empty())
          fail(block.hostname->where, fmt::format("hostname '{}' {}", host, problem));
      } else {
        host = paths_[d];
        std::replace(host.begin(), host.end(), '/', '-');
        if (host.empty()) host = spec_.name;
      }
      b_.set_hostname(d, host);
      b_.set_node_resources(d, block.node);
    }
    if (!block.labels.empty()) {
      Labels labels;
      for (const LabelRule& rule : block.labels) labels.emplace_back(rule.key, expand(rule.value));
      b_.set_domain_labels(d, std::move(labels));
    }
    if (deferring_ > 0)
      deferred_.emplace_back(&block, d);
    else
      for (const LinkRule& rule : block.links) add_links(rule, d);
  }

  const std::vector<NamePattern>& compile(const Text& t, const std::string& pattern) {
    auto it = pattern_cache_.find(pattern);
    if (it != pattern_cache_.end()) return it->second;
    std::vector<NamePattern> segments;
    std::size_t start = 0;
    while (true) {
      std::size_t slash = pattern.find('/', start);
      std::string_view seg = std::string_view(pattern).substr(start, slash == std::string::npos ? std::string::npos
                                                                                                   : slash - start);
      NamePattern p;
      std::string error;
      if (!p.parse(seg, error)) fail(t.where, fmt::format("in pattern '{}': {}", pattern, error));
      segments.push_back(std::move(p));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    return pattern_cache_.emplace(pattern, std::move(segments)).first->second;
  }

  // Devices below `base` matching a relative pattern like `tray*/gpu*`, in
  // hierarchy order.
  std::vector<DeviceId> resolve(const Text& t, DomainId base) {
    const std::vector<NamePattern>* compiled = nullptr;
    if (auto it = fixed_patterns_.find(&t); it != fixed_patterns_.end()) compiled = it->second;
    std::string pattern = compiled ? t.value : expand(t);
    if (!compiled) {
      compiled = &compile(t, pattern);
      if (is_fixed(t)) fixed_patterns_.emplace(&t, compiled);
    }
    const std::vector<NamePattern>& segments = *compiled;
    std::vector<DomainId> current{base};
    std::vector<DomainId> next;
    for (std::size_t s = 0; s + 1 < segments.size(); ++s) {
      next.clear();
      for (DomainId d : current)
        for (DomainId c : b_.children(d))
          if (segments[s].matches(b_.domain_local_name(c))) next.push_back(c);
      current.swap(next);
    }
    std::vector<DeviceId> out;
    for (DomainId d : current)
      for (DeviceId dev : devices_of_[d])
        if (segments.back().matches(b_.device_local_name(dev))) out.push_back(dev);
    // A pattern may match nothing in some domains (a partial last group); it
    // is an error only when it matches nothing anywhere (checked at the end).
    if (!out.empty()) matched_.insert(&t);
    return out;
  }

  void link(DeviceId a, DeviceId b, const LinkRule& rule, std::uint16_t type, int count) {
    if (a == b) fail(rule.from.where, fmt::format("this rule links '{}' to itself", b_.device_local_name(a)));
    b_.add_link(a, b, type, count, rule.bandwidth, rule.latency, rule.origin);
  }

  void add_links(const LinkRule& rule, DomainId d) {
    int count = static_cast<int>(expand_int(rule.count, 1, 65535, "link count"));
    std::uint16_t type = b_.link_type_index(rule.type);
    std::vector<DeviceId> from = resolve(rule.from, d);
    std::vector<DeviceId> to;
    bool needs_to = rule.mode == LinkMode::all || rule.mode == LinkMode::pairwise || rule.mode == LinkMode::rail;
    if (needs_to) to = resolve(rule.to, d);
    if (from.empty() || (needs_to && to.empty())) return;
    auto budget = [&](std::size_t n) {
      if (b_.link_count() + n > TopologyLimits::max_links)
        fail(rule.from.where, fmt::format("the topology would have more than {} links", TopologyLimits::max_links));
    };
    switch (rule.mode) {
      case LinkMode::all:
        if (from.size() > 0 && to.size() > TopologyLimits::max_links / from.size()) budget(TopologyLimits::max_links);
        budget(from.size() * to.size());
        for (DeviceId a : from)
          for (DeviceId b : to) link(a, b, rule, type, count);
        break;
      case LinkMode::pairwise:
        if (from.size() != to.size())
          fail(rule.from.where, fmt::format("mode 'pairwise' needs as many 'from' as 'to' devices; got {} and {}",
                                            from.size(), to.size()));
        for (std::size_t k = 0; k < from.size(); ++k) link(from[k], to[k], rule, type, count);
        break;
      case LinkMode::rail: {
        // The k-th matching device of each node goes to switch k (mod count).
        DomainId current = kNone;
        std::size_t k = 0;
        for (DeviceId a : from) {
          DomainId owner = b_.device_domain(a);
          if (owner != current) {
            current = owner;
            k = 0;
          }
          link(a, to[k++ % to.size()], rule, type, count);
        }
        break;
      }
      case LinkMode::mesh:
        if (from.size() > 1 && from.size() - 1 > 2 * TopologyLimits::max_links / from.size())
          budget(TopologyLimits::max_links);
        budget(from.size() * (from.size() - 1) / 2);
        for (std::size_t x = 0; x < from.size(); ++x)
          for (std::size_t y = x + 1; y < from.size(); ++y) link(from[x], from[y], rule, type, count);
        break;
      case LinkMode::ring:
      case LinkMode::chain:
        for (std::size_t x = 0; x + 1 < from.size(); ++x) link(from[x], from[x + 1], rule, type, count);
        if (rule.mode == LinkMode::ring && from.size() > 2) link(from.back(), from.front(), rule, type, count);
        break;
      case LinkMode::groups: {
        // Every pair of groups gets one link bundle; each group hands out its
        // devices round-robin so that ports are spread evenly.
        std::vector<std::vector<DeviceId>> groups;
        std::unordered_map<DomainId, std::size_t> group_of;
        for (DeviceId a : from) {
          DomainId key = b_.device_domain(a);
          while (b_.level_of(key) > rule.group_level) key = b_.parent(key);
          if (b_.level_of(key) != rule.group_level)
            fail(rule.from.where, fmt::format("device '{}' does not lie inside a '{}' domain",
                                              b_.device_local_name(a), spec_.levels[rule.group_level]));
          auto [it, added] = group_of.try_emplace(key, groups.size());
          if (added) groups.emplace_back();
          groups[it->second].push_back(a);
        }
        budget(groups.size() * (groups.size() - 1) / 2);
        std::vector<std::size_t> cursor(groups.size(), 0);
        for (std::size_t x = 0; x < groups.size(); ++x)
          for (std::size_t y = x + 1; y < groups.size(); ++y) {
            DeviceId a = groups[x][cursor[x]++ % groups[x].size()];
            DeviceId b = groups[y][cursor[y]++ % groups[y].size()];
            link(a, b, rule, type, count);
          }
        break;
      }
    }
    check_size(rule.from.where);
  }

  void apply_overrides();

  // Link patterns that matched no device in any domain are typos, unless the
  // rule says it is optional.
  void check_unmatched() {
    DiagnosticSink sink;
    for (const Block& block : spec_.blocks) {
      if (!instantiated_.count(&block)) continue;
      for (const LinkRule& rule : block.links)
        for (const Text* t : {&rule.from, &rule.to})
          if (!rule.optional)
          if (!t->value.empty() && !matched_.count(t))
            sink.error(t->where, fmt::format("pattern '{}' matches no device in any '{}' domain", t->value,
                                             block.name));
    }
    sink.throw_if_any();
  }

  const Spec& spec_;
  TopologyBuilder& b_;
  TemplateScope scope_;
  std::vector<long long> level_counter_;
  std::vector<std::vector<DeviceId>> devices_of_;
  std::string path_hint(const std::string& domain_part, const NamePattern& dp) const;

  std::vector<std::string> paths_;
  std::unordered_map<std::string, std::vector<std::string>> name_cache_;
  std::unordered_map<std::string, std::vector<NamePattern>> pattern_cache_;
  // Rules whose text has no template resolve the same everywhere (the maps
  // above never move their values, so the pointers stay valid).
  std::unordered_map<const Text*, const std::vector<std::string>*> fixed_names_;
  std::unordered_map<const Block*, bool> fixed_size_;
  std::unordered_map<const Block*, bool> fixed_links_;
  std::unordered_map<const Block*, bool> names_free_;
  // While a repeated instance is built, its domains' link rules wait here.
  int deferring_ = 0;
  std::vector<std::pair<const Block*, DomainId>> deferred_;
  std::unordered_map<const Text*, const std::vector<NamePattern>*> fixed_patterns_;
  std::unordered_set<const Text*> matched_;
  std::unordered_set<const Block*> instantiated_;
};

// For a domain pattern that matched nothing: the paths it matches the end
// of (`r0003` where `su000/r0003` is meant), as a hint.
std::string Instantiator::path_hint(const std::string& domain_part, const NamePattern& dp) const {
  if (domain_part.empty()) return "";
  std::set<std::string> prefixes;
  for (DomainId d = 0; d < b_.domain_count(); ++d) {
    const std::string& path = paths_[d];
    for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
      if (dp.matches(std::string_view(path).substr(slash + 1))) prefixes.insert(path.substr(0, slash));
  }
  if (prefixes.empty()) return "";
  std::string prefix = prefixes.size() == 1 ? *prefixes.begin() : "*";
  return fmt::format("; domains are named by their path below the root: did you mean '{}/{}'?", prefix, domain_part);
}

void Instantiator::apply_overrides() {
  if (spec_.overrides.empty()) return;
  // Parents, for walking subtrees of matched domains.
  for (const Override& o : spec_.overrides) {
    std::string pattern = expand(o.pattern);
    std::vector<DeviceId> targets;
    std::vector<DomainId> domains;
    auto subtree = [&](DomainId root) {
      std::vector<DomainId> stack{root};
      while (!stack.empty()) {
        DomainId x = stack.back();
        stack.pop_back();
        for (DeviceId dev : devices_of_[x]) targets.push_back(dev);
        for (DomainId c : b_.children(x)) stack.push_back(c);
      }
    };
    NamePattern p;
    std::string error;
    std::string domain_part = pattern;
    std::string device_part;
    if (o.target == OverrideTarget::device) {
      std::size_t slash = pattern.rfind('/');
      device_part = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
      domain_part = slash == std::string::npos ? std::string() : pattern.substr(0, slash);
    }
    NamePattern dp;
    if (!domain_part.empty() && !dp.parse(domain_part, error)) fail(o.pattern.where, error);
    if (!device_part.empty() && !p.parse(device_part, error)) fail(o.pattern.where, error);
    const auto host_level = static_cast<LevelIndex>(spec_.levels.size() - 1);
    for (DomainId d = 0; d < b_.domain_count(); ++d) {
      bool is_node = b_.level_of(d) == host_level;
      bool hit = false;
      if (o.target == OverrideTarget::node)
        hit = is_node && dp.matches(b_.hostname(d));
      else if (o.target == OverrideTarget::domain)
        hit = d != b_.root() && (dp.matches(paths_[d]) || (is_node && dp.matches(b_.hostname(d))));
      else if (domain_part.empty())
        hit = d == b_.root();
      else
        hit = d != b_.root() && dp.matches(is_node ? b_.hostname(d) : std::string_view(paths_[d]));
      if (!hit) continue;
      if (o.target == OverrideTarget::device) {
        for (DeviceId dev : devices_of_[d])
          if (p.matches(b_.device_local_name(dev))) targets.push_back(dev);
      } else {
        domains.push_back(d);
        subtree(d);
      }
    }
    if (targets.empty() && domains.empty())
      fail(o.pattern.where, fmt::format("override '{}' matches nothing{}", pattern, path_hint(domain_part, dp)));
    // A node's own state (what a scheduler sees of a node without
    // accelerators) follows the state set on it or on a domain above it.
    if (o.state)
      for (DomainId d : domains) {
        std::vector<DomainId> stack{d};
        while (!stack.empty()) {
          DomainId x = stack.back();
          stack.pop_back();
          if (b_.level_of(x) == host_level) {
            NodeResources r = b_.node_resources(x);
            r.state = *o.state;
            b_.set_node_resources(x, std::move(r));
          }
          for (DomainId c : b_.children(x)) stack.push_back(c);
        }
      }
    for (DeviceId dev : targets) {
      if (o.state) b_.set_device_state(dev, *o.state);
      if (is_accelerator(b_.device_kind(dev))) {
        if (o.speed) b_.set_device_speed(dev, *o.speed);
        if (o.memory_gib) b_.set_device_memory(dev, *o.memory_gib);
      }
      if (o.target == OverrideTarget::device && !o.labels.empty()) b_.add_device_labels(dev, o.labels);
    }
    if (o.target != OverrideTarget::device && !o.labels.empty())
      fail(o.pattern.where, "labels of nodes and domains belong in their block's 'labels'");
  }
}

}  // namespace

namespace {

// A document that is no topology at all (empty, a single value, a list, a
// mapping without any of a topology's keys) gets one error saying what it
// seems to be, rather than one per key.
void check_is_topology(const yaml::Node& root, std::string_view text, const std::string& file) {
  if (root.IsMap())
    for (const auto& entry : root)
      if (!entry.first.IsScalar() ||
          !did_you_mean(entry.first.Scalar(), {"name", "levels", "blocks", "root", "parameters"}).empty() ||
          entry.first.Scalar() == "name")
        return;
  std::string hint = file_kind_hint(text, FileKind::topology);
  if (root.IsNull())
    throw InputError({file, 1, 1}, hint.empty() ? "the file is empty; a topology file is a mapping with 'name', "
                                                  "'levels' and 'blocks' (topoplan-topology(5))"
                                                : "not a topology: " + hint);
  throw InputError(yaml::where(file, root).line > 0 ? yaml::where(file, root) : SourceLocation{file, 1, 1},
                   hint.empty() ? "not a topology: a topology file is a mapping with 'name', 'levels' and 'blocks' "
                                  "(topoplan-topology(5))"
                                : "not a topology: " + hint);
}

}  // namespace

Topology parse_topology_yaml(std::string_view text, const std::string& file, const ParameterSettings& settings) {
  return parse_topology_document(yaml::parse(text, file, FileKind::topology), text, file, settings);
}

Topology parse_topology_document(const yaml::Node& root, std::string_view text, const std::string& file,
                                 const ParameterSettings& settings) {
  check_is_topology(root, text, file);
  DiagnosticSink sink;
  std::vector<SourceLocation> origins;
  SpecReader reader(file, sink, &origins);
  Spec spec = reader.read(root, false);
  sink.throw_if_any();
  apply_settings(spec, settings);

  TopologyBuilder builder(spec.name, spec.levels);
  builder.set_description(spec.description);
  builder.set_parameters(spec.parameters);
  builder.set_nccl_environment(spec.nccl);
  for (SourceLocation& where : origins) builder.add_origin(std::move(where));
  Instantiator(spec, builder).run();
  return builder.finish(sink);
}

TopologyInfo describe_topology_yaml(std::string_view text, const std::string& file) {
  yaml::Node root = yaml::parse(text, file, FileKind::topology);
  check_is_topology(root, text, file);
  DiagnosticSink sink;
  SpecReader reader(file, sink, nullptr);
  Spec spec = reader.read(root, true);
  sink.throw_if_any();
  TopologyInfo info;
  info.name = spec.name;
  info.description = spec.description;
  info.parameters = spec.parameters;
  info.levels = spec.levels;
  return info;
}

}  // namespace topoplan
