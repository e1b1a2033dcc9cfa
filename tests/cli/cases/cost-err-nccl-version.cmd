cost dgx-h100:nodes=2 -c allreduce -s 1G --nccl-version 2.x
