cost dgx-h100:nodes=1 -c allreduce -s 1M --gpus-per-thread 8 --format json
