cost gb200-nvl72 --collective allreduce --size 1G --first 200
