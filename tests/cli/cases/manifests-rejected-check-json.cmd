# check's JSON counts rejections and lists them with the other problems.
check gb200-nvl72:racks=4 ../data/manifests/rejected.yaml ../data/manifests/bad-segment.sbatch --format json
