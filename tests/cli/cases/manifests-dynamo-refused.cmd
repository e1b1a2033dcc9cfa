# DynamoGraphDeployments Dynamo's webhook or CRD refuses: each is left out
# and check fails.
check gb200-nvl72:racks=2 ../data/dynamo/refused.yaml --level-label example.com/nvl-block=su
