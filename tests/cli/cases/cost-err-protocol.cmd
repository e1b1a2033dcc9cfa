cost dgx-h100:nodes=2 -c allreduce -s 4K --protocol LL129
