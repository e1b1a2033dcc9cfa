# Two topology annotations, a slice size that does not divide the pods, 8-GPU
# pods on 4-GPU trays, Volcano partitions that do not cover the replicas: what
# Kueue's/Volcano's validation refuses or can never run -> FAIL with 4
# problems; 'fine' places.
check gb200-nvl72:racks=4 ../data/manifests/rejected.yaml
