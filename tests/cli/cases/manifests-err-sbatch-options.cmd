# Unknown options, missing and malformed values: input errors.
check gb200-nvl72:racks=4 ../data/manifests/bad-options.sbatch
