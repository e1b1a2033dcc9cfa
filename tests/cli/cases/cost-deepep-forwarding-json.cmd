cost dgx-h200:nodes=2 -c alltoall -s 448MiB --ep-kernel deepep --format json
