cost gb200-nvl72:racks=2 --collective alltoall --size 256MiB --devices 'r0000-n[00-07],r0001-n[00-07]'
