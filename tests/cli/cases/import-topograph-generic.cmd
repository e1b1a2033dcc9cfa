import --from topograph ../data/topograph/small-tree.yaml
