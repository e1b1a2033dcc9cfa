# The same all-to-all as JSON: its p2p_batches object (batches, peers_per_batch, latency_us).
cost dgx-h100:nodes=128 --collective alltoall --size 64MiB --format json
