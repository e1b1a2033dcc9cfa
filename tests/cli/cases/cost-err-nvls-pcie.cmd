cost pcie-8gpu --collective allreduce --size 1G --algorithm nvls
