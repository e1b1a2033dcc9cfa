# 32 trays in segments of 16, each inside one NVL72 rack (the block level).
plan gb200-nvl72:racks=4 ../data/manifests/nvl72-segments.sbatch
