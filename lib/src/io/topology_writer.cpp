#include "topoplan/io/topology_writer.hpp"

#include "topoplan/support/error.hpp"

namespace topoplan {

std::string write_topology_yaml(const Topology&, const TopologyWriteOptions&) {
  throw InputError({}, "writing the native format is not available in this build yet");
}

}  // namespace topoplan
