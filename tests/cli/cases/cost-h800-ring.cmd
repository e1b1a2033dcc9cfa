cost h800:nodes=1 --collective allreduce --size 8G --algorithm ring
