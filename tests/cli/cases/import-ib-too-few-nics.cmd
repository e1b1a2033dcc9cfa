import --from ibnetdiscover ../data/ibnetdiscover/topograph-example.out --gpus-per-node 2
