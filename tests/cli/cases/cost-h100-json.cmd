cost dgx-h100:nodes=2 --collective allreduce --size 8G --first 16 --format json
