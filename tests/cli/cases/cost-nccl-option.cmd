cost ../../bench/data/topologies/gcp-a3-mega.yaml -c allreduce -s 8G --nccl NCCL_BUFFSIZE=4194304
