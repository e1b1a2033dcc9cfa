cost mi300x:nodes=1 -c allreduce --sweep 1M:16M -g 8
