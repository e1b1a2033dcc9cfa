// The simulator's timeline: evenly spaced buckets whose width doubles as
// the run grows, each holding the mean utilisation over it.
#include "../../lib/src/simulate/timeline.hpp"

#include <catch2/catch.hpp>

using namespace topoplan;

namespace {

std::vector<std::uint32_t> none() { return {3}; }

}  // namespace

TEST_CASE("timeline: buckets hold the mean busy share over their span") {
  // 10 accelerators, buckets of 10 s: 4 busy for 0-15 s, 8 busy for 15-20 s.
  Timeline t(0, 10, 4, 10);
  t.advance(15, {4, 1, 0}, none);
  std::vector<TimelinePoint> points = t.finish(20, {8, 2, 0}, none);
  REQUIRE(points.size() == 2);
  CHECK(points[0].time_s == 10);
  CHECK(points[0].utilisation == Approx(0.4));
  CHECK(points[1].time_s == 20);
  CHECK(points[1].utilisation == Approx((4 * 5 + 8 * 5) / 100.0));  // 0.6
  CHECK(points[1].running == 2);
  CHECK(points[1].largest_free == std::vector<std::uint32_t>{3});
}

TEST_CASE("timeline: a long run ends with between target and twice target points") {
  Timeline t(100, 1, 10, 4);
  // Busy 4 of 4 for the first half, none for the second: 1000 s in all.
  t.advance(600, {4, 1, 0}, none);
  std::vector<TimelinePoint> points = t.finish(1100, {0, 0, 0}, none);
  CHECK(points.size() >= 10);
  CHECK(points.size() < 20);
  double area = 0, previous = 100;
  for (const TimelinePoint& p : points) {
    CHECK(p.time_s > previous);
    area += p.utilisation * (p.time_s - previous);
    previous = p.time_s;
  }
  CHECK(previous == 1100);
  // Mean utilisation over the run is 0.5, whatever the buckets.
  CHECK(area / 1000 == Approx(0.5));
}
