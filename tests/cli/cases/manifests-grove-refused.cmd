# PodCliqueSets Grove's webhook refuses: each is left out and check fails.
check gb200-nvl72:racks=2 ../data/grove/refused.yaml
