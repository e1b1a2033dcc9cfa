#include "topoplan/cost/serial_launch.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

TEST_CASE("one ROCm thread driving several GPUs pays a launch for each beyond the first") {
  CHECK(serial_launch_us(Generation::cdna, 1) == 0);
  CHECK(serial_launch_us(Generation::cdna, 0) == 0);
  CHECK(serial_launch_us(Generation::cdna, 2) == Approx(kRocmLaunchUs));
  CHECK(serial_launch_us(Generation::cdna, 8) == Approx(7 * kRocmLaunchUs));
  // CUDA: not priced (serial_launch.hpp says why).
  CHECK(serial_launch_us(Generation::hopper, 8) == 0);
  CHECK(serial_launch_us(Generation::blackwell, 4) == 0);
}

TEST_CASE("added host time lengthens a collective and lowers its bandwidths with it") {
  CollectiveCost c;
  c.time_us = 30;
  c.latency_us = 10;
  c.algbw_gbps = 40;
  c.busbw_gbps = 70;
  const CollectiveCost longer = with_added_time(c, 30);
  CHECK(longer.time_us == Approx(60));
  CHECK(longer.latency_us == Approx(40));
  CHECK(longer.algbw_gbps == Approx(20));
  CHECK(longer.busbw_gbps == Approx(35));
  // Nothing added, or nothing to add to: unchanged.
  CHECK(with_added_time(c, 0).time_us == Approx(30));
  CollectiveCost unreachable = c;
  unreachable.reachable = false;
  CHECK(with_added_time(unreachable, 30).time_us == Approx(30));
}
