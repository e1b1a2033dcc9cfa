#include "command.hpp"

namespace topoplan::cli {

namespace {

constexpr Command kCommands[] = {
    {"topology", "list, show and validate topologies", setup_topology},
    {"render", "draw a topology as DOT, SVG or PNG", setup_render},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace topoplan::cli
