# 4 DGX H100 nodes under one leaf switch (--switches=1); the directive after
# srun is not read. The leaf level of dgx-h100 is its scalable unit.
check dgx-h100:nodes=64 ../data/manifests/h100-switches.sbatch
