# plan leaves rejected jobs out with a warning.
plan gb200-nvl72:racks=4 ../data/manifests/rejected.yaml
