# check reports as text or JSON; YAML is the plan file format, refused here.
check gb200-nvl72:racks=2 inputs/jobs-acceptance.yaml --format yaml
