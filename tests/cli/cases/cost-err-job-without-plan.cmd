# --job names a job of a plan: without --plan it would be ignored.
cost gb200-nvl72 -c allreduce -s 1G --job pretrain
