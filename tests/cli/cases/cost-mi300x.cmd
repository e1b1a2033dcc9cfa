cost mi300x:nodes=1 --collective allreduce --size 1G --first 8
