cost dgx-h100:nodes=1 --collective allreduce --sweep 1K:16G
