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
  // Every candidate's time pays it too; NCCL's estimate does not.
  c.candidate_data[0] = {Algorithm::ring, Protocol::simple, 30, 25};
  c.candidate_count = 1;
  c.one_island_us = 20;
  const CollectiveCost with = with_added_time(c, 30);
  CHECK(with.candidates()[0].time_us == Approx(60));
  CHECK(with.candidates()[0].tuner_us == Approx(25));
  CHECK(with.one_island_us == Approx(50));
  // A transfer no longer the larger part: the latency is the bottleneck.
  c.bottleneck = 0;
  CHECK(with_added_time(c, 1).bottleneck == 0);
  CHECK(with_added_time(c, 30).bottleneck == kNone);
  // Nothing added, or nothing to add to: unchanged.
  CHECK(with_added_time(c, 0).time_us == Approx(30));
  CollectiveCost unreachable = c;
  unreachable.reachable = false;
  CHECK(with_added_time(unreachable, 30).time_us == Approx(30));
}

TEST_CASE("a thread's serial launches are kept on the cost for reports") {
  CollectiveCost c;
  c.time_us = 29;
  c.latency_us = 20;
  c.generation = Generation::cdna;
  const CollectiveCost eight = with_serial_launches(c, 8);
  CHECK(eight.gpus_per_thread == 8);
  CHECK(eight.serial_launch_us == Approx(7 * kRocmLaunchUs));
  CHECK(eight.time_us == Approx(29 + 7 * kRocmLaunchUs));
  c.generation = Generation::hopper;
  const CollectiveCost cuda = with_serial_launches(c, 8);
  CHECK(cuda.gpus_per_thread == 8);
  CHECK(cuda.serial_launch_us == 0);
  CHECK(cuda.time_us == Approx(29));
  CHECK(with_serial_launches(c, 1).gpus_per_thread == 1);
}
