#!/usr/bin/env python3
"""The fit behind lib/src/cost/ep_kernel.cpp's IBGDA constants.

pplx-kernels' published dispatch times on DGX H100 (perplexityai/pplx-kernels
README, "Benchmark Results"; mirror magnate3/linux-riscv-dev
nccl/plugin/pplx-kernels/README.md @65a05200), rows a20-a25 and c48-c49 of
bench/data. Model: t = fixed + per_peer x remote_peers + per_put x puts/peers
+ wire, wire = the remote bytes over one 400 Gb/s (50 GB/s) NIC per GPU, which
the link model's NIC tier reproduces within 4 %. Least squares of relative
error on the fit points; prints the constants and every point's error.
Plain Python, no numpy.
"""
HIDDEN, TOPK, NIC_MB_PER_US = 7168, 8, 50e3  # FP8 hidden of DeepSeek-V3; bytes/us

POINTS = {  # (role, EP ranks, tokens per GPU): microseconds
    ("fit", 16, 1): 102.7, ("fit", 128, 1): 125.9, ("fit", 32, 128): 427.6, ("fit", 128, 128): 307.7,
    ("check", 16, 128): 622.4, ("check", 64, 128): 317.4, ("check", 32, 1): 115.7, ("check", 64, 1): 121.0,
}


def terms(ep, tokens):
    peers, remote, puts = ep - 1, ep - 8, tokens * TOPK
    wire = puts * HIDDEN * remote / peers / NIC_MB_PER_US
    return [1.0, remote, puts / peers], wire


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


rows, rhs = [], []
for (role, ep, tok), v in POINTS.items():
    if role == "fit":
        t, wire = terms(ep, tok)
        rows.append([a / v for a in t])
        rhs.append((v - wire) / v)
fixed, per_peer, per_put = solve(rows, rhs)
print(f"fixed {fixed:.1f} us, per remote peer {per_peer:.3f} us, per put {per_put:.2f} us")
for (role, ep, tok), v in POINTS.items():
    t, wire = terms(ep, tok)
    model = fixed * t[0] + per_peer * t[1] + per_put * t[2] + wire
    print(f"{role:5} EP{ep:<3} {tok:3} tok  measured {v:6.1f}  model {model:6.1f}  {(model - v) / v:+.1%}")
