cost pcie-8gpu --collective allreduce --size 1G --first 16
