#include "topoplan/cost/nccl_tuning.hpp"

#include <algorithm>
#include <cmath>

namespace topoplan::nccl {

double link_efficiency(const LinkType& type) {
  switch (type.family) {
    case LinkFamily::nvlink:
      switch (type.generation) {
        case 1: return 18.0 / 20.0;
        case 2: return 20.0 / 25.0;
        case 3: return 20.0 / 25.0;
        case 4: return 20.6 / 25.0;
        case 5: return 40.1 / 50.0;
        default: return 0.8;
      }
    case LinkFamily::pcie: {
      // NCCL: lanes * speed / 80 with speed 15, 30, 60, 120, 240, 480 for
      // Gen1..Gen6 (kvDictPciGen); the catalogue's payload rates per lane are
      // 0.25, 0.5, 0.985, 1.969, 3.938, 7.375 GB/s.
      switch (type.generation) {
        case 1:
        case 2: return 0.75;
        case 3:
        case 4:
        case 5: return 0.75 * 130.0 / 128.0;
        case 6: return 6.0 / (64.0 * 236.0 / 256.0 / 8);
        default: return 0.75;
      }
    }
    case LinkFamily::xgmi: return 48.0 / 64.0;
    case LinkFamily::nvlink_c2c:
    case LinkFamily::groq_c2c:
    case LinkFamily::cpu_link:
    case LinkFamily::infiniband:
    case LinkFamily::roce:
    case LinkFamily::ethernet: return 1.0;
  }
  return 1.0;
}



}  // namespace topoplan::nccl
