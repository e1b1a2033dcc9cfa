# -N 10 with --segment=4: sbatch refuses it -> FAIL.
check gb200-nvl72:racks=4 ../data/manifests/bad-segment.sbatch
