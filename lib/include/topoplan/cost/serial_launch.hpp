// One thread driving several GPUs: nccl-tests' `-g G` (nGpus), or any program
// that holds several communicators in one thread. Each call then launches one
// kernel per GPU from that thread. The model prices a process (or thread) per
// GPU, as training and serving frameworks run, and as NCCL's and RCCL's
// maintainers ask benchmarks to run (NVIDIA/nccl-tests#333: "the CUDA latency
// overheads of single process jobs"; AMD's blog below); this is what the other
// launch adds.
//
// ROCm serializes the kernel launches one process makes on several GPUs
// (AMD's ROCm blog, "Understanding RCCL Bandwidth and xGMI Performance on AMD
// Instinct MI300X", 2025-03-02, "Use a Single Process per GPU"), so a thread
// driving G GPUs adds G - 1 launches to every call. One launch costs what a
// CUDA-graph replay saves a process per GPU in the same post: all_reduce_perf
// on 8 MI300X, RCCL 2.22.3, 1 KiB, 13.11 us without a graph and 7.47 with one
// (kRocmLaunchUs). ROCm/rccl#1562's Azure MI300X VM with -g 8 (RCCL 2.20.5)
// takes 46 us at 8 B and 65 at 1 MiB, 30 and 38 us above AMD's own process per
// GPU at those sizes: seven launches of 4-5 us, the same order.
//
// CUDA launches are asynchronous, and how a thread's launches on several
// devices compose with their kernels in nccl-tests' timing loop is not settled
// by what is published: the same Azure H100 run with -g 8 (NCCL 2.18.5) takes
// 26 us at 1 KiB and 42-45 us from 64 KiB to 2 MiB, which neither a fixed floor
// nor a fixed addition explains. CUDA's serial launch is 0 here; the CUDA
// runs with -g in the calibration carry it in their gpus_per_thread column
// all the same, and `cost -g` says it is not priced.
#pragma once

#include <cstdint>

#include "topoplan/cost/cost_model.hpp"
#include "topoplan/cost/gpu_generation.hpp"

namespace topoplan {

/// One kernel launch of a ROCm process, in microseconds: what a graph replay
/// saves (the blog above: 13.11 - 7.47 us).
inline constexpr double kRocmLaunchUs = 5.64;

/// The most GPUs one thread may be said to drive (nccl-tests' -g): a
/// calibration setup's gpus_per_thread and `cost -g` are held to 1..this.
inline constexpr std::uint32_t kMaxGpusPerThread = 64;

/// Host time a call takes beyond a process per GPU's when one thread drives
/// `gpus_per_thread` GPUs of `generation`: (G - 1) launches on ROCm (cdna),
/// 0 on CUDA and for G <= 1.
double serial_launch_us(Generation generation, std::uint32_t gpus_per_thread);

/// `cost` taking `extra_us` longer: time and latency grow (and the one-island
/// time it is compared with and every candidate's, which would pay the same;
/// NCCL's estimates stay as they are), the algorithm and
/// bus bandwidths fall with the time, and the bottleneck becomes the latency
/// once it is the larger part. An unreachable or empty cost is returned as it
/// is.
CollectiveCost with_added_time(CollectiveCost cost, double extra_us);

/// `cost` as one thread driving `gpus_per_thread` GPUs measures it:
/// serial_launch_us for the cost's generation added (with_added_time), and
/// the count and the time kept on the cost for reports.
CollectiveCost with_serial_launches(CollectiveCost cost, std::uint32_t gpus_per_thread);

}  // namespace topoplan
