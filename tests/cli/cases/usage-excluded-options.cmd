# Two ways of naming ranks at once.
cost dgx-h100 -c allreduce -s 1G --first 2 --devices h100-00000/gpu0
