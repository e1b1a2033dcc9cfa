# A node list as TOPO, Kueue's Topology/flavor/queues and three workloads,
# with the pods already running: per node by cpu, memory and GPUs (see
# tests/data/kueue/SOURCE.txt). train's 4 pods of 2 GPUs fit only rack r1
# (gpu-a1 has 4 GPUs left after inference-0, gpu-a2 all 8) and go to the one
# node that holds them all; serve's two 4-GPU workers find one node at most;
# tiny's 1-GPU pods go least-free first (gpu-b3, gpu-b1, then gpu-a1).
plan ../data/kueue/nodes.json ../data/kueue/kueue.yaml ../data/kueue/jobs.yaml --policy kueue --occupied ../data/kueue/pods.json
