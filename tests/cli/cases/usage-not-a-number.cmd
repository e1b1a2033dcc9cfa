# A number that is no number.
cost dgx-h100 -c allreduce -s 1G --first many
