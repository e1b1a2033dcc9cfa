// The slowdown model as topoplan(1) SIMULATION documents it.
#include "topoplan/simulate/slowdown.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("slowdown: the communication share stretches by the step-time ratio") {
  SlowdownModel m;
  // f = 0.3, step 2x the ideal: 1 + 0.3 x (2 - 1).
  CHECK(m.factor(0.3, 2.0, 1.0) == Approx(1.3));
  CHECK(m.factor(0.3, 1.0, 1.0) == 1.0);
  CHECK(m.factor(0.0, 5.0, 1.0) == 1.0);
  // Never faster than the trace measured.
  CHECK(m.factor(0.5, 0.5, 1.0) == 1.0);
  // An ideal that costs nothing (one accelerator) or an unpriced step: no slowdown.
  CHECK(m.factor(0.5, 1.0, 0.0) == 1.0);
  CHECK(m.factor(0.5, -1.0, 1.0) == 1.0);
  m.scale = 2;
  CHECK(m.factor(0.3, 2.0, 1.0) == Approx(1.6));
  m.scale = 0;
  CHECK(m.factor(0.3, 2.0, 1.0) == 1.0);
}

TEST_CASE("slowdown: the communication share by job size, the flag and the trace") {
  CHECK(SlowdownModel::default_comm_fraction(1) == 0.0);
  CHECK(SlowdownModel::default_comm_fraction(2) == 0.10);
  CHECK(SlowdownModel::default_comm_fraction(8) == 0.10);
  CHECK(SlowdownModel::default_comm_fraction(9) == 0.20);
  CHECK(SlowdownModel::default_comm_fraction(64) == 0.20);
  CHECK(SlowdownModel::default_comm_fraction(65) == 0.30);
  SlowdownModel m;
  CHECK(m.comm_fraction_for(0.6, 16) == 0.6);
  CHECK(m.comm_fraction_for(std::nullopt, 16) == 0.20);
  m.comm_fraction = 0.05;
  CHECK(m.comm_fraction_for(std::nullopt, 16) == 0.05);
  CHECK(m.comm_fraction_for(std::nullopt, 1) == 0.0);
  CHECK(m.comm_fraction_for(0.6, 16) == 0.6);
}
