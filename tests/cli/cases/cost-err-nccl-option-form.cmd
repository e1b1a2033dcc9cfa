cost dgx-h100 -c allreduce -s 1G --nccl NCCL_BUFFSIZE
