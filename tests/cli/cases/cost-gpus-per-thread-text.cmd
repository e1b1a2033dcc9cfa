cost mi300x:nodes=1 -c allreduce -s 1M -g 8
