import --from ibnetdiscover ../data/ibnetdiscover/topograph-example.out
