# A hand plan that breaks chat-70b's rack guarantee and its tenant isolation: check fails.
check gb200-nvl72:racks=4 inputs/plan-serving-broken.yaml
