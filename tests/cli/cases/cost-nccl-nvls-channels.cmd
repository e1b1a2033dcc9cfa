cost dgx-h100:nodes=1 -c allreduce -s 8G --nccl NCCL_NVLS_NCHANNELS=4
