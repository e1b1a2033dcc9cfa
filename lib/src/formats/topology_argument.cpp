#include "topoplan/formats/topology_argument.hpp"

#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "format_functions.hpp"
#include "io/kubernetes_list.hpp"
#include "io/topology_document.hpp"
#include "io/yaml_support.hpp"

namespace topoplan {

namespace {

// Settings are a native topology's parameters; a node list has none.
void refuse_settings(const TopologyArgument& arg, std::string_view what) {
  if (!arg.settings.values.empty())
    throw InputError({arg.settings.origin, 0, 0},
                     fmt::format("'{}' is {}, which takes no settings; settings are parameters of a topology in "
                                 "topoplan's format (topoplan-topology(5))",
                                 arg.target, what));
}

}  // namespace

ImportResult load_topology_argument(std::string_view argument, const FileReader& read,
                                    const TopologyArgumentOptions& options) {
  TopologyArgument arg = parse_topology_argument(argument);
  std::optional<std::string> text;
  if (!arg.target.empty() && !find_builtin_topology(arg.target)) text = read(arg.target);
  // A preset, or no such file: load_topology says which names exist.
  if (!text) return {load_topology(argument, [](const std::string&) { return std::optional<std::string>(); }), {}};

  const ImportSource source{arg.target, std::move(*text)};
  if (is_openb_node_list(source.text)) {
    refuse_settings(arg, "an openb node list");
    return formats::import_openb_nodes(std::span<const ImportSource>(&source, 1), {});
  }
  // A syntax error is the topology reader's: only valid YAML is a node list.
  std::vector<yaml::Node> documents = yaml::parse_all(source.text, source.path, FileKind::topology);
  if (yaml::is_object_list(documents, "Node")) {
    refuse_settings(arg, "a Kubernetes node list");
    ImportOptions import;
    import.level_labels = options.level_labels;
    import.cpu_nodes = true;  // a Kueue flavor may hold CPU nodes too
    return formats::import_k8s_node_documents(documents, source.path, import);
  }
  return {parse_topology_document(yaml::first_document(documents), source.text, source.path, arg.settings), {}};
}

}  // namespace topoplan
