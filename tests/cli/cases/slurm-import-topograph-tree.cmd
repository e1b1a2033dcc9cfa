import --from slurm ../data/slurm/topograph-expected.slinky-oci-sim-tree.conf --node-type dgx-h100 --name oci-sim
