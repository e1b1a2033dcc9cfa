cost inputs/topology-nccl-bad.yaml -c allreduce -s 1G
