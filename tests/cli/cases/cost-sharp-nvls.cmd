# SHARP declared on the switches: NVLS runs across the 8 nodes (NVLS with SHARP).
cost ../../bench/data/topologies/dgx-h100-sharp.yaml --collective allreduce --size 8G --first 64
