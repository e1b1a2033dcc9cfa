# A value outside an option's range.
import --from slurm ../data/slurm/uneven-tree.conf --gpus-per-node 0
