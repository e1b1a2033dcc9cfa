# Dynamo graph with an SLA planner and topoplan annotations: SLO, prompt lengths, prefill and decode on different nodes.
plan dgx-h100:nodes=4 inputs/dynamo-efa-planner.yaml
