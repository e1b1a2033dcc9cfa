// The --device-perf file: columns, measurements made relative, states,
// classes, globs, and one FILE:LINE:COL error per problem.
#include "topoplan/io/device_perf.hpp"

#include <catch2/catch.hpp>

#include "test_presets.hpp"

using namespace topoplan;
using topoplan::test::preset;

namespace {

std::vector<std::string> errors(const std::string& text, const Topology& t, const std::string& cls = "") {
  try {
    read_device_perf(text, "perf.csv", t, cls);
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const Diagnostic& d : e.diagnostics()) out.push_back(d.where.str() + ": " + d.message);
    return out;
  }
  return {};
}

}  // namespace

TEST_CASE("device perf: relative speeds, states and globs, later rows winning") {
  Topology t = preset("dgx-h100:nodes=2");
  const std::string n0(t.hostname(t.domains_at(t.host_level()).first));
  const std::string n1(t.hostname(t.domains_at(t.host_level()).first + 1));
  std::vector<DeviceOverride> o = read_device_perf("device,speed,state\n" + n0 + "/gpu*,0.9,\n" + n0 +
                                                       "/gpu3,0.5,up\n" + n1 + "/gpu0,,down\n",
                                                   "perf.csv", t);
  REQUIRE(o.size() == 9);  // 8 GPUs of n0, one of n1
  TopologyIndex index(t);
  auto find = [&](const std::string& name) {
    DeviceId d = *index.find_device(name);
    for (const DeviceOverride& x : o)
      if (x.device == d) return x;
    FAIL("no override for " << name);
    return DeviceOverride{};
  };
  CHECK(find(n0 + "/gpu0").speed == Approx(0.9f));
  CHECK(find(n0 + "/gpu3").speed == Approx(0.5f));
  CHECK(find(n1 + "/gpu0").state == DeviceState::down);
  CHECK(find(n1 + "/gpu0").speed == Approx(1.0f));  // no speed given: unchanged
}

TEST_CASE("device perf: durations and TFLOP/s are made relative to their median") {
  Topology t = preset("dgx-h100:nodes=1");
  const std::string n0(t.hostname(t.domains_at(t.host_level()).first));
  // PAL's `perf` is a run time: larger is slower. Median of 10, 10, 12 = 10.
  std::vector<DeviceOverride> d = read_device_perf(
      "device,perf,temp\n" + n0 + "/gpu0,10,60\n" + n0 + "/gpu1,12,71\n" + n0 + "/gpu2,10,58\n", "perf.csv", t);
  REQUIRE(d.size() == 3);
  CHECK(d[0].speed == Approx(1.0));
  CHECK(d[1].speed == Approx(10.0 / 12));
  // Throughput: larger is faster. Median of 400, 500 = 450.
  std::vector<DeviceOverride> f =
      read_device_perf("device,measured_tflops\n" + n0 + "/gpu0,400\n" + n0 + "/gpu1,500\n", "perf.csv", t);
  CHECK(f[0].speed == Approx(400.0 / 450));
  CHECK(f[1].speed == Approx(500.0 / 450));
}

TEST_CASE("device perf: a workload class chooses its rows") {
  Topology t = preset("dgx-h100:nodes=1");
  const std::string n0(t.hostname(t.domains_at(t.host_level()).first));
  const std::string text = "device,speed,class\n" + n0 + "/gpu0,0.8,resnet\n" + n0 + "/gpu0,0.95,bert\n" + n0 +
                           "/gpu1,0.7,\n";
  std::vector<DeviceOverride> bert = read_device_perf(text, "perf.csv", t, "bert");
  REQUIRE(bert.size() == 2);
  CHECK(bert[0].speed == Approx(0.95));
  CHECK(bert[1].speed == Approx(0.7));  // rows without a class apply to every class
  CHECK(errors(text, t) ==
        std::vector<std::string>{"perf.csv:1:14: rows for 2 workload classes (bert, resnet); choose one with "
                                 "--perf-class"});
  CHECK(errors(text, t, "gpt") ==
        std::vector<std::string>{"perf.csv:1:1: --perf-class gpt: no row has that class (classes: bert, resnet)"});
}

TEST_CASE("device perf: every bad value is reported with its position") {
  Topology t = preset("dgx-h100:nodes=1");
  const std::string n0(t.hostname(t.domains_at(t.host_level()).first));
  CHECK(errors("", t) == std::vector<std::string>{"perf.csv:1:1: no header: a device performance file starts with a "
                                                  "line naming its columns, e.g. 'device,speed,state'"});
  CHECK(errors("name,speed\nx,1\n", t) ==
        std::vector<std::string>{"perf.csv:1:1: no 'device' column (the header has name, speed)"});
  CHECK(errors("device,speed,perf\n", t) ==
        std::vector<std::string>{"perf.csv:1:14: two speed columns, 'speed' and 'perf'; give one"});
  CHECK(errors("device,speed,state\n" + n0 + "/gpu0,fast,up\n" + n0 + "/gpu1,-1,\n" + n0 + "/gpu2,1,dwn\nnope,1,\n",
               t) == std::vector<std::string>{
                         "perf.csv:2:" + std::to_string(n0.size() + 7) + ": 'fast' is not a speed: give a positive number up to 1e9",
                         "perf.csv:3:" + std::to_string(n0.size() + 7) + ": '-1' is not a speed: give a positive number up to 1e9",
                         "perf.csv:4:" + std::to_string(n0.size() + 9) +
                             ": unknown state 'dwn'; states are up, drain, down; did you mean 'down'?",
                         "perf.csv:5:1: 'nope' names no accelerator of dgx-h100"});
  // Relative speeds stay in the range a topology file allows.
  CHECK(errors("device,speed\n" + n0 + "/gpu0,1e-30\n", t) ==
        std::vector<std::string>{"perf.csv:2:" + std::to_string(n0.size() + 7) +
                                 ": a relative speed of 1e-30 is out of range (1e-06 to 1e+06 times nominal)"});
}

TEST_CASE("device perf: every class gets its own speeds, its rows over the class-less ones") {
  Topology t = preset("dgx-h100:nodes=1");
  const std::string n0(t.hostname(t.domains_at(t.host_level()).first));
  // The class-less row comes last, yet a class's own row wins for gpu0.
  const std::string text = "device,speed,class\n" + n0 + "/gpu0,0.8,resnet\n" + n0 + "/gpu1,0.9,bert\n" + n0 +
                           "/gpu*,0.7,\n";
  DevicePerf perf = read_device_perf_classes(text, "perf.csv", t);
  CHECK(perf.classes == std::vector<std::string>{"bert", "resnet"});
  CHECK(perf.default_class.empty());  // several classes, none chosen: class-less rows only
  REQUIRE(perf.overrides.size() == 8);
  for (const DeviceOverride& o : perf.overrides) CHECK(o.speed == Approx(0.7));
  REQUIRE(perf.speed_classes.size() == 2);
  const SpeedClass& bert = perf.speed_classes[0];
  const SpeedClass& resnet = perf.speed_classes[1];
  CHECK(bert.name == "bert");
  REQUIRE(bert.speed.size() == 8);
  CHECK(bert.speed[0] == Approx(0.7));
  CHECK(bert.speed[1] == Approx(0.9));
  CHECK(resnet.speed[0] == Approx(0.8));
  CHECK(resnet.speed[1] == Approx(0.7));
  // With a default the devices' own speeds are that class's.
  DevicePerf with_default = read_device_perf_classes(text, "perf.csv", t, "resnet");
  CHECK(with_default.overrides[0].speed == Approx(0.8));
  CHECK(with_default.overrides[1].speed == Approx(0.7));
}

TEST_CASE("device perf: durations are relative to the median of their own class") {
  Topology t = preset("dgx-h100:nodes=1");
  const std::string n0(t.hostname(t.domains_at(t.host_level()).first));
  // Two applications of different run times on the same two GPUs: gpu1 is
  // the slower one for bert, the faster one for resnet.
  const std::string text = "device,perf,class\n" + n0 + "/gpu0,0.10,bert\n" + n0 + "/gpu1,0.14,bert\n" + n0 +
                           "/gpu0,3.0,resnet\n" + n0 + "/gpu1,2.0,resnet\n";
  DevicePerf perf = read_device_perf_classes(text, "perf.csv", t);
  REQUIRE(perf.speed_classes.size() == 2);
  CHECK(perf.speed_classes[0].speed[0] == Approx(0.12 / 0.10));
  CHECK(perf.speed_classes[0].speed[1] == Approx(0.12 / 0.14));
  CHECK(perf.speed_classes[1].speed[0] == Approx(2.5 / 3.0));
  CHECK(perf.speed_classes[1].speed[1] == Approx(2.5 / 2.0));
  CHECK(perf.speed_classes[1].speed[2] == Approx(1.0));  // no row: nominal
}
