cost dgx-h100:nodes=4 -c allreduce -s 8G --first 32
