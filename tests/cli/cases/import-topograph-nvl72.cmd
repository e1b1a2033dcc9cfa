import --from topograph ../data/topograph/nvl72.yaml --node-type gb200-nvl72
