cost gb200-nvl72 --collective allreduc --size 1G
