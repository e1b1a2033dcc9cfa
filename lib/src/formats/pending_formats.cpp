// Formats whose implementation has not landed yet. Each entry moves to its
// own file when it is written; this file disappears when it is empty.
#include "format_functions.hpp"

namespace topoplan::formats {

namespace {
[[noreturn]] void pending(std::string_view what) {
  throw InputError({}, std::string(what) + " is not available in this build yet");
}
}  // namespace

ImportResult import_k8s_nodes(std::span<const ImportSource>, const ImportOptions&) { pending("import from k8s-nodes"); }
ImportResult import_nccl_xml(std::span<const ImportSource>, const ImportOptions&) { pending("import from nccl-xml"); }
ImportResult import_nvidia_smi(std::span<const ImportSource>, const ImportOptions&) { pending("import from nvidia-smi"); }
ImportResult import_ibnetdiscover(std::span<const ImportSource>, const ImportOptions&) {
  pending("import from ibnetdiscover");
}

std::string export_kueue(const Topology&, const ExportOptions&) { pending("export to kueue"); }
std::string export_volcano(const Topology&, const ExportOptions&) { pending("export to volcano"); }

}  // namespace topoplan::formats
