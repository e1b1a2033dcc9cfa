// --from topograph: a cluster model of NVIDIA Topograph (the YAML files its
// simulation providers and tests load, tests/models/*.yaml) as a topology.
//
// The model (NVIDIA/topograph docs/modeling.md and pkg/models/model.go @
// e2b62507, Apache-2.0; read, not copied):
//   switches:            # map: switch name -> {labels, annotations, switches}
//     core: {labels: {topology.kubernetes.io/region: us-east}, switches: [spine-1]}
//   blocks:              # list: {switch, nodes: [hostlists], labels, annotations}
//   - switch: leaf-1-1
//     nodes: ["node[1101-1118]"]
//     annotations: {accelerator.topology.test/domain: nvl-1-1}
// Topograph's own rules, enforced here too: a switch has at most one parent;
// a child switch named only in its parent's list exists without an entry of
// its own; `blocks` is the only place that names nodes, each node in one
// block; a block's `switch` must be a known switch. A node's annotations are
// those of its block over those of its switches, nearest first; its
// accelerator domain (the NVLink domain Topograph turns into a Slurm block and
// the accelerator.topograph.run/domain label) is the annotation
// accelerator.topology.test/domain, its sub-domain (a rack of a multi-rack
// domain) accelerator.topology.test/sub-domain.
//
// How it becomes a topology:
//  - The switch tree is built as a Slurm tree is (slurm_import.cpp): tiers
//    counted from the leaves, levels named leaf, spine, core, tierN above
//    (Topograph's own tier names before v1.0), pass-through domains where the
//    tree is uneven, a non-blocking fabric of --fabric-link.
//  - Switch labels and annotations label the switch's domain; a block's labels
//    and annotations (the sub-domain among them) label each of its nodes, or
//    its leaf switch's domain when they are the same for every node there.
//  - Each accelerator domain is one scale-up island, built in the smallest
//    switch domain holding all its nodes: with a node type whose islands span
//    nodes (--node-type gb200-nvl72), as that island's NVLink switch trays;
//    otherwise as one NVLink 5 partition switch.
//  - A model without switches (Topograph allows block-only models) gets the
//    shape of a Slurm topology/block import: levels cluster, block, node, a
//    block per accelerator domain (or per block entry without one), the
//    blocks joined by one switch.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "import_support.hpp"
#include "io/yaml_support.hpp"
#include "slurm_topology.hpp"

namespace topoplan::formats {

namespace {

constexpr std::string_view kDomainKey = "accelerator.topology.test/domain";
// The switch that joins the blocks of a block-only model; parentheses keep it
// apart from any name a model is likely to use.
constexpr std::string_view kBlockRoot = "(fabric)";

struct ModelSwitch {
  std::string name;
  SourceLocation where;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::vector<std::string> children;
  std::vector<SourceLocation> child_where;  // of each name in `children`
  SourceLocation children_where;
  bool declared = false;  // has an entry of its own (not only named as a child)
};

struct ModelBlock {
  std::size_t index = 0;  // 1-based, as users count
  SourceLocation where;
  std::string switch_name;
  SourceLocation switch_where;
  slurm::NameList nodes;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
};

struct Model {
  SourceLocation where;
  std::vector<ModelSwitch> switches;  // declared ones in file order, then the implied ones
  std::vector<ModelBlock> blocks;
};

class ModelReader {
 public:
  ModelReader(const std::string& file, DiagnosticSink& sink, std::size_t max_hosts)
      : file_(file), sink_(sink), budget_(max_hosts) {}

  Model read(const yaml::Node& root) {
    Model model;
    model.where = yaml::where(file_, root);
    if (!root.IsMap()) {
      throw InputError(model.where, "a Topograph model is a mapping with `blocks:` (and usually `switches:`); "
                                    "this is not one");
    }
    yaml::MapReader m(root, file_, sink_, "model");
    m.allow({"switches", "blocks"});
    if (m.has("switches")) read_switches(m.get("switches"), model);
    if (!m.has("blocks")) {
      sink_.error(model.where, "the model has no `blocks:` list, the only place a Topograph model names its nodes");
    } else {
      yaml::Node list = m.get("blocks");
      if (!list.IsSequence() || list.size() == 0)
        sink_.error(yaml::where(file_, list), "`blocks` must be a non-empty list of {switch, nodes, ...} entries");
      else
        for (const yaml::Node& item : list) read_block(item, model);
    }
    return model;
  }

 private:
  void read_switches(const yaml::Node& node, Model& model) {
    if (!node.IsMap()) {
      sink_.error(yaml::where(file_, node), "`switches` must map switch names to {labels, annotations, switches}");
      return;
    }
    std::map<std::string, std::size_t> index;
    for (const auto& entry : node) {
      std::optional<std::string> name = yaml::scalar(entry.first, file_, sink_, "switch name");
      if (!name) continue;
      ModelSwitch s;
      s.name = *name;
      s.where = yaml::where(file_, entry.first);
      s.declared = true;
      if (!check_name(s.name, s.where)) continue;
      if (!index.emplace(s.name, model.switches.size()).second) {
        sink_.error(s.where, fmt::format("switch '{}' is defined twice", s.name));
        continue;
      }
      const yaml::Node& body = entry.second;
      if (body.IsNull() || !body.IsDefined()) {
        // Topograph refuses this too ("has empty definition").
        sink_.error(s.where, fmt::format("switch '{}' has an empty definition; leave out a switch that has nothing "
                                         "to say, or give it `switches:`",
                                         s.name));
        continue;
      }
      if (!body.IsMap()) {
        sink_.error(yaml::where(file_, body), fmt::format("switch '{}' must be a mapping", s.name));
        continue;
      }
      yaml::MapReader r(body, file_, sink_, fmt::format("switch '{}'", s.name));
      r.allow({"name", "labels", "annotations", "switches"});
      if (std::optional<std::string> given = r.string("name"); given && *given != s.name)
        sink_.error(r.where("name"), fmt::format("switch '{}' says its name is '{}'", s.name, *given));
      s.labels = string_map(r, "labels");
      s.annotations = string_map(r, "annotations");
      if (r.has("switches")) {
        yaml::Node children = r.get("switches");
        s.children_where = yaml::where(file_, children);
        if (!children.IsSequence()) {
          sink_.error(s.children_where, fmt::format("the `switches` of switch '{}' must be a list of names", s.name));
        } else {
          for (const yaml::Node& c : children)
            if (std::optional<std::string> child = yaml::scalar(c, file_, sink_, "switch name"))
              if (check_name(*child, yaml::where(file_, c))) {
                s.children.push_back(*child);
                s.child_where.push_back(yaml::where(file_, c));
              }
        }
      }
      model.switches.push_back(std::move(s));
    }
    // Children named only in their parent's list exist too (Topograph
    // materialises them), in the order they are first named.
    for (std::size_t i = 0; i < model.switches.size(); ++i)
      for (std::size_t c = 0; c < model.switches[i].children.size(); ++c)
        if (index.emplace(model.switches[i].children[c], model.switches.size()).second) {
          ModelSwitch implied;
          implied.name = model.switches[i].children[c];
          implied.where = model.switches[i].child_where[c];
          model.switches.push_back(std::move(implied));
        }
  }

  void read_block(const yaml::Node& item, Model& model) {
    ModelBlock b;
    b.index = model.blocks.size() + 1;
    b.where = yaml::where(file_, item);
    if (!item.IsMap()) {
      sink_.error(b.where, fmt::format("block {} must be a mapping with `nodes:`", b.index));
      model.blocks.push_back(std::move(b));
      return;
    }
    yaml::MapReader r(item, file_, sink_, fmt::format("block {}", b.index));
    r.allow({"switch", "nodes", "labels", "annotations"});
    if (std::optional<std::string> sw = r.string("switch")) {
      b.switch_name = *sw;
      b.switch_where = r.where("switch");
    }
    if (!r.has("nodes")) {
      sink_.error(b.where, fmt::format("block {} has no `nodes:`; each block names at least one node", b.index));
    } else {
      yaml::Node nodes = r.get("nodes");
      b.nodes.where = yaml::where(file_, nodes);
      b.nodes.present = true;
      if (!nodes.IsSequence()) {
        sink_.error(b.nodes.where, fmt::format("the `nodes` of block {} must be a list of hostlists, as in "
                                               "[\"node[1101-1118]\"]",
                                               b.index));
      } else {
        for (const yaml::Node& n : nodes) {
          std::optional<std::string> text = yaml::scalar(n, file_, sink_, "hostlist");
          if (!text) continue;
          slurm::NameList part = slurm::expand_names(*text, yaml::where(file_, n), sink_, "nodes", budget_);
          b.nodes.names.insert(b.nodes.names.end(), part.names.begin(), part.names.end());
        }
        if (nodes.size() == 0)
          sink_.error(b.nodes.where, fmt::format("block {} has an empty `nodes` list", b.index));
      }
    }
    b.labels = string_map(r, "labels");
    b.annotations = string_map(r, "annotations");
    model.blocks.push_back(std::move(b));
  }

  std::map<std::string, std::string> string_map(yaml::MapReader& r, std::string_view key) {
    std::map<std::string, std::string> out;
    if (!r.has(key)) return out;
    yaml::Node node = r.get(key);
    if (node.IsNull()) return out;
    if (!node.IsMap()) {
      sink_.error(yaml::where(file_, node), fmt::format("`{}` must map keys to values", key));
      return out;
    }
    for (const auto& e : node) {
      std::optional<std::string> k = yaml::scalar(e.first, file_, sink_, fmt::format("{} key", key));
      std::optional<std::string> v = yaml::scalar(e.second, file_, sink_, fmt::format("{} value", key));
      if (k && v) out[*k] = *v;
    }
    return out;
  }

  bool check_name(const std::string& name, const SourceLocation& where) {
    std::string problem = slurm::name_problem(name);
    if (!problem.empty()) sink_.error(where, fmt::format("switch '{}' {}", name, problem));
    return problem.empty();
  }

  const std::string& file_;
  DiagnosticSink& sink_;
  slurm::NameBudget budget_;
};

Labels labels_of(const std::map<std::string, std::string>& labels,
                 const std::map<std::string, std::string>& annotations) {
  std::map<std::string, std::string> all = annotations;
  for (const auto& [k, v] : labels) all[k] = v;  // a label wins over an annotation of the same key
  return Labels(all.begin(), all.end());
}

// Checks what the tree builder cannot word in Topograph's terms, and returns
// each switch's parent (by index; npos for a root).
std::vector<std::size_t> parents(const Model& model, const std::map<std::string, std::size_t>& index,
                                 DiagnosticSink& sink) {
  std::vector<std::size_t> parent(model.switches.size(), std::string::npos);
  for (std::size_t p = 0; p < model.switches.size(); ++p)
    for (std::size_t i = 0; i < model.switches[p].children.size(); ++i) {
      const std::string& c = model.switches[p].children[i];
      const SourceLocation& where = model.switches[p].child_where[i];
      std::size_t child = index.at(c);
      if (child == p)
        sink.error(where, fmt::format("switch '{}' lists itself", c));
      else if (parent[child] == p)
        sink.error(where, fmt::format("switch '{}' lists '{}' twice", model.switches[p].name, c));
      else if (parent[child] != std::string::npos)
        sink.error(where, fmt::format("switch '{}' has two parent switches, '{}' and '{}'", c,
                                      model.switches[parent[child]].name, model.switches[p].name));
      else
        parent[child] = p;
    }
  return parent;
}

// A node's accelerator domain: its block's annotation, else the nearest
// switch's on the way up.
std::string accelerator_domain(const ModelBlock& block, const Model& model, const std::vector<std::size_t>& parent,
                               const std::map<std::string, std::size_t>& index) {
  if (auto it = block.annotations.find(std::string(kDomainKey)); it != block.annotations.end()) return it->second;
  if (block.switch_name.empty()) return {};
  std::size_t s = index.at(block.switch_name);
  for (std::size_t hops = 0; s != std::string::npos && hops <= model.switches.size(); ++hops, s = parent[s])
    if (auto it = model.switches[s].annotations.find(std::string(kDomainKey)); it != model.switches[s].annotations.end())
      return it->second;
  return {};
}

// Labels shared by every host of a leaf switch label the leaf's domain
// instead, where they say what they mean (the accelerator domain of a block
// that fills its rack) and the hosts stay alike.
void hoist_common_labels(const slurm::TopologySpec& spec, slurm::TreeExtras& extras) {
  for (const slurm::Switch& s : spec.switches) {
    if (s.nodes.names.empty()) continue;
    auto first = extras.host_labels.find(s.nodes.names.front());
    if (first == extras.host_labels.end()) continue;
    const Labels common = first->second;
    bool same = std::all_of(s.nodes.names.begin(), s.nodes.names.end(), [&](const std::string& h) {
      auto it = extras.host_labels.find(h);
      return it != extras.host_labels.end() && it->second == common;
    });
    if (!same) continue;
    std::map<std::string, std::string> merged;
    if (auto it = extras.switch_labels.find(s.name); it != extras.switch_labels.end())
      merged.insert(it->second.begin(), it->second.end());
    bool clash = std::any_of(common.begin(), common.end(), [&](const auto& kv) {
      auto it = merged.find(kv.first);
      return it != merged.end() && it->second != kv.second;
    });
    if (clash) continue;
    merged.insert(common.begin(), common.end());
    extras.switch_labels[s.name] = Labels(merged.begin(), merged.end());
    for (const std::string& h : s.nodes.names) extras.host_labels.erase(h);
  }
}

}  // namespace

ImportResult import_topograph(std::span<const ImportSource> sources, const ImportOptions& options) {
  const ImportSource& source = single_source(sources, "topograph");
  DiagnosticSink sink;
  Model model = ModelReader(source.path, sink, options.max_hosts).read(yaml::parse(source.text, source.path, FileKind::topograph));
  sink.throw_if_any();

  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < model.switches.size(); ++i) index.emplace(model.switches[i].name, i);
  std::vector<std::size_t> parent = parents(model, index, sink);

  // Nodes: each in one block; a block's switch must exist.
  std::map<std::string, std::size_t> block_of;  // host -> block index
  std::size_t switched = 0;
  std::vector<std::string> switch_names;
  for (const ModelSwitch& s : model.switches) switch_names.push_back(s.name);
  for (const ModelBlock& b : model.blocks) {
    for (const std::string& h : b.nodes.names) {
      if (auto [it, fresh] = block_of.emplace(h, b.index); !fresh)
        sink.error(b.nodes.where, fmt::format("node '{}' is in two blocks, {} and {}", h, it->second, b.index));
      else if (h.find('/') != std::string::npos)
        sink.error(b.nodes.where, fmt::format("node name '{}' contains '/', which topoplan uses between names", h));
    }
    if (b.switch_name.empty()) continue;
    ++switched;
    if (!index.count(b.switch_name)) {
      std::string hint = did_you_mean(b.switch_name, switch_names);
      sink.error(b.switch_where, fmt::format("block {} names unknown switch '{}'{}", b.index, b.switch_name,
                                             hint.empty() ? "" : " (" + hint + ")"));
    } else if (!model.switches[index.at(b.switch_name)].children.empty()) {
      sink.error(b.switch_where, fmt::format("block {} puts nodes on switch '{}', which has child switches; nodes "
                                             "belong on leaf switches (as in Slurm's topology/tree)",
                                             b.index, b.switch_name));
    }
  }
  if (switched > 0 && switched < model.blocks.size())
    for (const ModelBlock& b : model.blocks)
      if (b.switch_name.empty())
        sink.error(b.where, fmt::format("block {} has no `switch` while other blocks have one; topoplan needs every "
                                        "node in the switch tree",
                                        b.index));
  sink.throw_if_any();

  ImportResult result;
  const bool block_only = switched == 0;
  if (block_only && !model.switches.empty())
    result.warnings.push_back({model.switches.front().where, "no block names a switch: the switch tree is left out "
                                                             "and the blocks are joined by one switch"});

  // The tree for the builder, and what the model adds to it.
  slurm::TopologySpec spec;
  spec.kind = slurm::TopologySpec::Kind::tree;
  spec.where = model.where;
  slurm::TreeExtras extras;
  extras.switch_model = "topograph-switch";
  extras.islands_hint = fmt::format("the annotation {} names a block's NVLink domain", kDomainKey);
  std::map<std::string, std::size_t> island_index;  // accelerator domain -> extras.islands
  std::map<std::string, std::vector<std::string>> hosts_on;  // leaf switch -> hosts
  std::map<std::string, SourceLocation> hosts_where;
  std::size_t max_island = 0;
  // Each block's leaf switch: its own, or in a block-only model the block
  // named after its accelerator domain (or its position).
  std::vector<std::string> leaf_of(model.blocks.size());
  for (const ModelBlock& b : model.blocks) {
    std::string domain = accelerator_domain(b, model, parent, index);
    std::string& leaf = leaf_of[b.index - 1];
    leaf = b.switch_name;
    if (block_only) leaf = domain.empty() ? fmt::format("block{}", b.index) : domain;
    std::vector<std::string>& on = hosts_on[leaf];
    on.insert(on.end(), b.nodes.names.begin(), b.nodes.names.end());
    hosts_where.try_emplace(leaf, b.nodes.where);
    Labels labels = labels_of(b.labels, b.annotations);
    if (!labels.empty())
      for (const std::string& h : b.nodes.names) extras.host_labels[h] = labels;
    if (domain.empty()) continue;
    auto [it, fresh] = island_index.emplace(domain, extras.islands.size());
    if (fresh) extras.islands.push_back({domain, b.where, {}});
    std::vector<std::string>& members = extras.islands[it->second].hosts;
    members.insert(members.end(), b.nodes.names.begin(), b.nodes.names.end());
    max_island = std::max(max_island, members.size());
  }
  auto leaf_switch = [&](const std::string& name, SourceLocation where) {
    slurm::Switch s;
    s.name = name;
    s.where = where;
    s.nodes.names = hosts_on[name];
    s.nodes.present = true;
    s.nodes.where = hosts_where[name];
    return s;
  };
  if (block_only) {
    slurm::Switch root;
    root.name = std::string(kBlockRoot);
    root.where = model.where;
    root.switches.present = true;
    std::set<std::string> listed;
    for (const ModelBlock& b : model.blocks) {
      const std::string& leaf = leaf_of[b.index - 1];
      if (!listed.insert(leaf).second) continue;
      if (std::string why = slurm::name_problem(leaf); !why.empty())
        sink.error(b.where, fmt::format("accelerator domain '{}' {}", leaf, why));
      root.switches.names.push_back(leaf);
      spec.switches.push_back(leaf_switch(leaf, b.where));
    }
    sink.throw_if_any();
    spec.switches.insert(spec.switches.begin(), std::move(root));
    extras.tier_names = {"block", "cluster"};
  } else {
    for (std::size_t i = 0; i < model.switches.size(); ++i) {
      const ModelSwitch& m = model.switches[i];
      slurm::Switch s = leaf_switch(m.name, m.where);
      s.nodes.present = !s.nodes.names.empty();
      s.switches.names = m.children;
      s.switches.where = m.children_where;
      s.switches.present = !m.children.empty();
      spec.switches.push_back(std::move(s));
      Labels labels = labels_of(m.labels, m.annotations);
      if (!labels.empty()) extras.switch_labels[m.name] = std::move(labels);
    }
    extras.tier_names = {"leaf", "spine", "core"};
    for (int t = 3; t < slurm::kMaxTiers; ++t) extras.tier_names.push_back(fmt::format("tier{}", t));
  }
  hoist_common_labels(spec, extras);
  extras.description = fmt::format("NVIDIA Topograph model: {} switches, {} nodes, {} accelerator domains",
                                   block_only ? 0 : model.switches.size(), block_of.size(), extras.islands.size());

  if (!options.node_type && options.gpus_per_node == 0 && max_island > 1)
    result.warnings.push_back(
        {model.where, fmt::format("the model does not say what a node holds: each is taken as 8 generic GPUs, so an "
                                  "accelerator domain of {} nodes is a {}-GPU NVLink partition; for GB200/GB300 NVL72 "
                                  "racks (18 trays of 4 GPUs) give --node-type gb200-nvl72 or gb300-nvl72",
                                  max_island, max_island * 8)});
  std::string name = topology_name(sources, options);
  result.topology = slurm::build_tree(spec, name, options, result.warnings, extras);
  return result;
}

}  // namespace topoplan::formats
