#include "topoplan/model/device_path.hpp"

namespace topoplan {

std::string_view path_shape_name(PathShape shape) {
  switch (shape) {
    case PathShape::chain:
      return "chain";
    case PathShape::ring:
      return "ring";
    case PathShape::set:
      return "set";
  }
  return "?";
}

}  // namespace topoplan
