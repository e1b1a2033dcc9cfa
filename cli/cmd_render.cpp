// topoplan render (placeholder until the renderer lands in lib/render)
#include "command.hpp"

namespace topoplan::cli {

Action setup_render(CLI::App& command) {
  (void)command;
  return []() { return static_cast<int>(kInputError); };
}

}  // namespace topoplan::cli
