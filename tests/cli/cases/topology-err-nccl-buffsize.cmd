topology validate inputs/topology-nccl-buffsize-bad.yaml
