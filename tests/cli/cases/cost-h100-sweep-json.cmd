cost dgx-h100:nodes=2 --collective allgather --sweep 1M:4M --first 16 --format json
