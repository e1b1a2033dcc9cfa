import --from ibnetdiscover ../data/ibnetdiscover/topograph-example-bad.out
