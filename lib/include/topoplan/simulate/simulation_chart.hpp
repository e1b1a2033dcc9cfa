// A simulation's picture: an SVG with utilisation over time per policy (top)
// and the distribution of job completion times per policy (bottom, an
// empirical CDF on a log time axis), drawn with cairo's SVG surface.
#pragma once

#include <string>

#include "topoplan/simulate/simulation_report.hpp"

namespace topoplan {

/// The chart as SVG text. Deterministic: same report, same bytes.
std::string simulation_svg(const SimulationReport& report);

}  // namespace topoplan
