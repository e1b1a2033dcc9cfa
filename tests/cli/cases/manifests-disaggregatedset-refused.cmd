# DisaggregatedSets the API server or the webhook refuses: left out, check fails.
check gb200-nvl72:racks=2 ../data/lws/refused.yaml
