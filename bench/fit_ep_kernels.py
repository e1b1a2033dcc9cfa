#!/usr/bin/env python3
"""The fits behind lib/src/cost/ep_kernel.cpp's constants, reproducible.

Plain Python, no numpy. Each kernel is priced as fixed costs plus the wire
time of its bytes over the busiest tier of the link model; the fit is a least
squares of relative error on the fit points, and every point's error is
printed (fit and check points are rows of bench/data, calibration-setups.csv
gives their roles).

pplx-kernels (perplexityai/pplx-kernels README, "Benchmark Results"; mirror
magnate3/linux-riscv-dev nccl/plugin/pplx-kernels/README.md @65a05200), DGX
H100 nodes, 7168 hidden, top-8, FP8 dispatch (7168 B a token) and BF16
combine (14336 B): t = fixed + per_peer x remote_peers + per_put x puts/peers
+ wire, wire = the remote bytes over one 400 Gb/s (50 GB/s) NIC per GPU,
which the link model's NIC tier reproduces within 4 %. Rows a20-a25, c48-c49
(dispatch) and a26-a35 (combine). The combine reuses the dispatch's routing
and exchanges no token counts: it has no per-peer term.

DeepEP's low-latency kernels (deepseek-ai/DeepEP docs/legacy.md, "Low-latency
kernels with pure RDMA"), H800 with one CX7 400G NIC per GPU, 128 tokens,
7168 hidden, top-8, FP8 dispatch with one fp32 scale per 128 values (7392 B a
token) and BF16 combine (14336 B): t = fixed + wire, one fixed cost for both;
wire = the link model's tiers on the h800 preset (NVLink 164.8 GB/s a GPU
inside one node; NIC 48 GB/s across nodes, remote share (ep - 8) / ep). Rows
a36-a47.
"""
PPLX_DISPATCH, PPLX_COMBINE, TOPK = 7168, 14336, 8
DEEPEP_DISPATCH, DEEPEP_COMBINE, DEEPEP_TOKENS = 7168 + 7168 // 128 * 4, 14336, 128
NIC_PPLX_MB_PER_US = 50e3
H800_NVLINK, H800_NIC = 164.8e3, 48e3  # bytes/us

PPLX_DISPATCH_POINTS = {  # (role, EP ranks, tokens per GPU): microseconds
    ("fit", 16, 1): 102.7, ("fit", 128, 1): 125.9, ("fit", 32, 128): 427.6, ("fit", 128, 128): 307.7,
    ("check", 16, 128): 622.4, ("check", 64, 128): 317.4, ("check", 32, 1): 115.7, ("check", 64, 1): 121.0,
}
PPLX_COMBINE_POINTS = {
    ("fit", 16, 1): 62.7, ("fit", 128, 1): 63.2, ("fit", 16, 128): 668.1, ("fit", 32, 128): 481.4,
    ("check", 32, 1): 55.4, ("check", 64, 1): 58.6, ("check", 64, 128): 529.9, ("check", 128, 128): 593.9,
}
DEEPEP_LL_POINTS = {  # (role, phase, EP ranks): microseconds
    ("fit", "dispatch", 8): 77, ("check", "dispatch", 16): 118, ("fit", "dispatch", 32): 155,
    ("check", "dispatch", 64): 173, ("fit", "dispatch", 128): 192, ("check", "dispatch", 256): 194,
    ("check", "combine", 8): 114, ("fit", "combine", 16): 195, ("check", "combine", 32): 273,
    ("fit", "combine", 64): 314, ("check", "combine", 128): 369, ("check", "combine", 256): 360,
}


def solve(rows, rhs):
    n = len(rows[0])
    m = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    b = [sum(r[i] * y for r, y in zip(rows, rhs)) for i in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            f = m[j][i] / m[i][i]
            m[j] = [a - f * c for a, c in zip(m[j], m[i])]
            b[j] -= f * b[i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (b[i] - sum(m[i][k] * x[k] for k in range(i + 1, n))) / m[i][i]
    return x


def fit(points, terms):
    rows, rhs = [], []
    for key, v in points.items():
        if key[0] == "fit":
            t, wire = terms(key)
            rows.append([a / v for a in t])
            rhs.append((v - wire) / v)
    x = solve(rows, rhs)
    for key, v in points.items():
        t, wire = terms(key)
        model = sum(a * c for a, c in zip(x, t)) + wire
        print(f"  {key[0]:5} {' '.join(str(k) for k in key[1:]):14} measured {v:6.1f}  model {model:6.1f}  "
              f"{(model - v) / v:+.1%}")
    return x


def pplx(message, per_peer):
    def terms(key):
        _, ep, tokens = key
        peers, remote, puts = ep - 1, ep - 8, tokens * TOPK
        wire = puts * message * remote / peers / NIC_PPLX_MB_PER_US
        return ([1.0, remote, puts / peers] if per_peer else [1.0, puts / peers]), wire
    return terms


def deepep_ll(key):
    _, phase, ep = key
    message = DEEPEP_DISPATCH if phase == "dispatch" else DEEPEP_COMBINE
    b = DEEPEP_TOKENS * TOPK * message
    wire = b * 7 / 8 / H800_NVLINK if ep == 8 else b * (ep - 8) / ep / H800_NIC
    return [1.0], wire


print("pplx-kernels IBGDA dispatch:")
fixed, per_peer, per_put = fit(PPLX_DISPATCH_POINTS, pplx(PPLX_DISPATCH, True))
print(f"  fixed {fixed:.1f} us, per remote peer {per_peer:.3f} us, per put {per_put:.2f} us")
print("pplx-kernels IBGDA combine:")
fixed, per_put = fit(PPLX_COMBINE_POINTS, pplx(PPLX_COMBINE, False))
print(f"  fixed {fixed:.1f} us, per put {per_put:.2f} us")
print("DeepEP low-latency dispatch and combine:")
(fixed,) = fit(DEEPEP_LL_POINTS, deepep_ll)
print(f"  fixed {fixed:.1f} us")
