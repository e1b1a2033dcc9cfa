# Groq jobs as a chain of a whole rack, a chain with a spare node, a ring and
# a group: chips in pipeline order, hops by kind, latency, uniformity.
plan groq:racks=2 ../../samples/jobs-groq.yaml
