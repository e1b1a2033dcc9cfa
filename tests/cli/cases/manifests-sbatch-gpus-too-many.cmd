# 8 GPUs per node on 4-GPU GB200 trays: Slurm never starts it -> FAIL.
check gb200-nvl72:racks=4 ../data/manifests/h100-switches.sbatch
