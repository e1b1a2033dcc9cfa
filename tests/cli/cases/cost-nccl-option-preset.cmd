cost dgx-h100:nodes=2 -c allreduce -s 1M --nccl NCCL_PROTO=LL128 --nccl NCCL_MIN_NCHANNELS=32
