#include "topoplan/simulate/slowdown.hpp"

#include <algorithm>

namespace topoplan {

double SlowdownModel::default_comm_fraction(std::uint32_t accelerators) {
  if (accelerators <= 1) return 0.0;
  if (accelerators <= 8) return 0.10;
  if (accelerators <= 64) return 0.20;
  return 0.30;
}

double SlowdownModel::comm_fraction_for(std::optional<double> own, std::uint32_t accelerators) const {
  if (own) return *own;
  if (accelerators <= 1) return 0.0;  // nothing to communicate with
  if (comm_fraction) return *comm_fraction;
  return default_comm_fraction(accelerators);
}

double SlowdownModel::factor(double f, double step_s, double ideal_step_s) const {
  if (!(ideal_step_s > 0) || !(step_s > 0)) return 1.0;
  return std::max(1.0, 1.0 + scale * f * (step_s / ideal_step_s - 1.0));
}

}  // namespace topoplan
