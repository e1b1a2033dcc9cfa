# Unknown kind (with a suggestion), a label that maps to no level, a bad
# number, a document without apiVersion: input errors, all reported at once.
check gb200-nvl72:racks=4 ../data/manifests/bad-kinds.yaml
