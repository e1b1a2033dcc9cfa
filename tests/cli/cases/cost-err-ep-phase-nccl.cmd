cost dgx-h100:nodes=2 -c alltoall -s 7MiB --ep-phase combine
