// Formats whose implementation has not landed yet. Each entry moves to its
// own file when it is written; this file disappears when it is empty.
#include "format_functions.hpp"

namespace topoplan::formats {

namespace {
[[noreturn]] void pending(std::string_view what) {
  throw InputError({}, std::string(what) + " is not available in this build yet");
}
}  // namespace

ImportResult import_slurm(std::span<const ImportSource>, const ImportOptions&) { pending("import from slurm"); }
ImportResult import_nccl_xml(std::span<const ImportSource>, const ImportOptions&) { pending("import from nccl-xml"); }
ImportResult import_nvidia_smi(std::span<const ImportSource>, const ImportOptions&) { pending("import from nvidia-smi"); }
ImportResult import_ibnetdiscover(std::span<const ImportSource>, const ImportOptions&) {
  pending("import from ibnetdiscover");
}

std::string export_slurm_tree(const Topology&, const ExportOptions&) { pending("export to slurm-tree"); }
std::string export_slurm_block(const Topology&, const ExportOptions&) { pending("export to slurm-block"); }
std::string export_slurm_yaml(const Topology&, const ExportOptions&) { pending("export to slurm-yaml"); }

}  // namespace topoplan::formats
