// Whether a YAML stream is a list of Kubernetes objects of one kind, as
// `kubectl get KIND -o yaml|json` writes it: the sniffer of the node-list
// importer and of `--occupied` pod lists. Private to lib/.
#pragma once

#include <span>
#include <string_view>

#include "yaml_tree.hpp"

namespace topoplan::yaml {

/// True when every document of `text` is an object of `kind`, or a List (or
/// a `kind`List, e.g. PodList) whose items are all mappings of that kind
/// (items may leave `kind` out only in a typed list), and at least one such
/// object exists. Empty documents are skipped; text that is not YAML is not
/// a list. Never throws.
bool is_object_list(std::string_view text, std::string_view kind);
/// The same of a stream already parsed: the documents of one file.
bool is_object_list(std::span<const Node> documents, std::string_view kind);

}  // namespace topoplan::yaml
