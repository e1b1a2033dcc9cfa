# 20 trays under one leaf switch: an NVL72 rack has 18 -> not placed, FAIL.
check gb200-nvl72:racks=4 ../data/manifests/rack-too-small.sbatch
