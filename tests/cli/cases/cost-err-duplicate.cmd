cost gb200-nvl72 --collective allreduce --size 1G --devices 'r0000-n00/gpu0,r0000-n00'
