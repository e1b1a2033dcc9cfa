// The simulator's random numbers: std::mt19937_64, whose sequence the C++
// standard fixes, with distributions written here, since std::*_distribution
// differ between standard libraries and the output must be the same bytes
// everywhere for a given seed.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace topoplan {

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}

  /// Uniform in [0, 1), 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  /// Exponential with the given rate (mean 1 / rate), by inversion.
  double exponential(double rate) { return -std::log1p(-uniform()) / rate; }
  /// Standard normal, by Box-Muller (one value per call; the second is dropped
  /// so that the sequence does not depend on call parity).
  double normal() {
    const double u = 1.0 - uniform();  // (0, 1]
    const double v = uniform();
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * 3.14159265358979323846 * v);
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace topoplan
