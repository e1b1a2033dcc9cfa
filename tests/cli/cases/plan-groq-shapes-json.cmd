# The same as JSON: chain, hops, path_latency_us, connected, uniform, spare_nodes.
plan groq:racks=2 ../../samples/jobs-groq.yaml --format json
