# An all-to-all inside one GB200 rack: NCCL's send channels (4 for each 64 MiB part), not the NVLinks, set the transfer.
cost gb200-nvl72:racks=1 --collective alltoall --size 512MiB --first 8
