# An sbatch script on stdin: named by -J, or 'stdin'.
plan gb200-nvl72:racks=4 - < ../data/manifests/rack-too-small.sbatch
