# The same in JSON: the send_channels object.
cost gb200-nvl72:racks=1 --collective alltoall --size 512MiB --first 8 --format json
