cost gb200-nvl72 --collective allreduce --sweep 16G:1K
