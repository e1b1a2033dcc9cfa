# Native, Kubernetes and Slurm manifests in one comparison.
compare gb200-nvl72:racks=4 ../../samples/jobs-nvl72.yaml ../data/manifests/gpu-workloads.yaml ../data/manifests/nvl72-segments.sbatch
