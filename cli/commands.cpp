#include "command.hpp"

namespace topoplan::cli {

namespace {

constexpr Command kCommands[] = {
    {"topology", "list, show and validate topologies", setup_topology},
    {"render", "draw a topology as DOT, SVG or PNG", setup_render},
    {"cost", "estimate the time of a collective on a set of accelerators", setup_cost},
    {"plan", "place jobs on a topology", setup_plan},
    {"evaluate", "price and check a given plan", setup_evaluate},
    {"compare", "plan the same jobs with several policies side by side", setup_compare},
    {"check", "CI gate: exit 0 when every job places and every constraint holds", setup_check},
    {"import", "turn Slurm, Kubernetes, NCCL, nvidia-smi, ibnetdiscover or Topograph files into a topology", setup_import},
    {"export", "write a topology as Slurm, Kueue or Volcano files", setup_export},
    {"export-plan", "write a plan as sbatch lines (Slurm) or node affinity patches (Kubernetes, Kueue)",
     setup_export_plan},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace topoplan::cli
