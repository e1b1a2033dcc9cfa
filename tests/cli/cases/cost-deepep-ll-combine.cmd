cost h800:nodes=4 -c alltoall -s 14MiB --ep-kernel deepep-ll --ep-phase combine
