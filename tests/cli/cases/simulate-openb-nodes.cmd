# An openb node list as TOPO: the pods replay where they ran, each on one
# node (worked by hand): pod 0 (8 GPUs) fits only the G2 node, 0-100; pod 1
# (2 x T4) 10-60 on the T4 node; pod 2 (one G2) waits for pod 0, 100-130; the
# CPU-only pod 3 is left out; pod 4 (GPU-sharing: a whole GPU) starts at 70 on
# the T4 node and ends at 80, before pod 2's reservation (backfill). JCT mean
# 67.5 s, wait mean 20 s, under topo and kueue alike. The GPU-less node is a
# warning.
simulate inputs/openb-nodes.csv inputs/openb-pods.csv --policies topo,kueue --format json --samples 1
