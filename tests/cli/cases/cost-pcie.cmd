cost pcie-8gpu:nodes=4 --collective allreduce --size 1G --first 16
