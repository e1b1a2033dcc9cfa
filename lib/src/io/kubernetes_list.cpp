#include "kubernetes_list.hpp"

#include <string>
#include <vector>

#include "yaml_support.hpp"

namespace topoplan::yaml {

bool is_object_list(std::string_view text, std::string_view kind) {
  std::vector<Node> docs;
  try {
    docs = parse_all(text, "");
  } catch (const InputError&) {
    return false;
  }
  return is_object_list(docs, kind);
}

bool is_object_list(std::span<const Node> docs, std::string_view kind) {
  const std::string typed_list = std::string(kind) + "List";
  bool any = false;
  for (const Node& doc : docs) {
    if (!doc.IsDefined() || doc.IsNull()) continue;
    const Node k = doc["kind"];
    if (!k.IsScalar()) return false;
    if (k.Scalar() == kind) {
      any = true;
      continue;
    }
    const bool typed = k.Scalar() == typed_list;
    if (!typed && k.Scalar() != "List") return false;
    const Node items = doc["items"];
    if (!items.IsSequence()) return false;
    for (const Node& item : items) {
      if (!item.IsMap()) return false;
      const Node ik = item["kind"];
      if (ik.IsDefined() ? !ik.IsScalar() || ik.Scalar() != kind : !typed) return false;
      any = true;
    }
  }
  return any;
}

}  // namespace topoplan::yaml
